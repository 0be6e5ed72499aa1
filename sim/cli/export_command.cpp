// stepsim export chakra SCENARIO DIR: the simulated step as Chakra execution traces, one file per
// GPU as ASTRA-sim's workload layer names them, and its communicator groups
// (export/chakra_trace.hpp).
#include <filesystem>

#include "sim/cli/command.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/export/chakra_trace.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void export_options(po::options_description& opts) {
  add_output_options(opts);
  opts.add_options()("prefix", po::value<std::string>()->value_name("NAME"),
                     "the files' prefix: NAME.<NPU>.et and NAME.comm_groups.json (default: the "
                     "scenario file's name)")(
      "max-size", po::value<std::string>()->default_value("1e10")->value_name("BYTES"),
      "refuse exports larger than this many bytes in all (1e3 to 1e13), before writing any");
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

const char* const kExportUsage = "stepsim export chakra scenarios/x.yaml out/";

std::string checked_prefix(const std::string& prefix) {
  const engine::SourceLoc at{"--prefix", 0, 0};
  const std::string hint = "a file name without a directory, e.g. --prefix step";
  if (prefix.empty()) throw engine::UserError(at, "the prefix is empty", hint);
  if (prefix.find('/') != std::string::npos || prefix.find('\0') != std::string::npos ||
      prefix == "." || prefix == "..")
    throw engine::UserError(at, "'" + prefix + "' is not a file name", hint);
  return prefix;
}

// ASTRA-sim's analytical backend on the files, as its example scripts run it: congestion-aware
// on one node, congestion-unaware on several (the aware one takes one dimension only).
std::string astra_sim_line(const std::string& dir, const std::string& prefix, int dimensions) {
  const std::string base = (std::filesystem::path(dir) / prefix).string();
  return std::string("  AstraSim_Analytical_Congestion_") +
         (dimensions == 1 ? "Aware" : "Unaware") + " --workload-configuration=" + base +
         " \\\n    --comm-group-configuration=" + base + ".comm_groups.json" +
         " \\\n    --system-configuration=" + base + ".system.json" +
         " \\\n    --network-configuration=" + base + ".network.yml" +
         " \\\n    --remote-memory-configuration=" + base + ".memory.json\n";
}

std::string size_text(double bytes) {
  return bytes >= 1e9 ? format::fixed(bytes / 1e9, 2) + " GB"
                      : format::fixed(bytes / 1e6, 2) + " MB";
}

int export_chakra(Invocation& in, const std::string& scenario, const std::string& dir);

int export_command(Invocation& in) {
  if (in.files.front() != "chakra")
    throw engine::UserError({"<command line>", 0, 0},
                            "unknown format '" + in.files.front() + "' of export", kExportUsage);
  if (in.files.size() != 3)
    throw engine::UserError({"<command line>", 0, 0},
                            "export chakra needs a scenario and an output directory", kExportUsage);
  const std::string scenario = in.files[1], dir = in.files[2];
  // A directory made here and left empty by a refusal or an interruption is removed again.
  std::error_code ec;
  const bool existed = std::filesystem::exists(dir, ec);
  try {
    return export_chakra(in, scenario, dir);
  } catch (...) {
    if (!existed) std::filesystem::remove(dir, ec);
    throw;
  }
}

int export_chakra(Invocation& in, const std::string& scenario, const std::string& dir) {
  const std::string prefix = checked_prefix(
      in.vm.count("prefix") ? in.text("prefix") : std::filesystem::path(scenario).stem().string());
  const double max_size = in.number("max-size", 1e3, 1e13);
  output_directory("export chakra DIR", dir, false);
  const auto specs = load_scenarios({scenario}, in.overrides, false, in.outputs);
  const workload::ParallelPlan plan = workload::make_plan(specs[0]);
  output_directory("export chakra DIR", dir, true);
  const std::filesystem::path base(dir);
  const std::string groups_file = (base / (prefix + ".comm_groups.json")).string();
  const std::string network_file = (base / (prefix + ".network.yml")).string();
  const std::string system_file = (base / (prefix + ".system.json")).string();
  const std::string memory_file = (base / (prefix + ".memory.json")).string();
  for (int npu = 0; npu < plan.world; ++npu)
    in.outputs.add("export chakra DIR",
                   (base / exports::ChakraTraces::file_name(prefix, npu)).string());
  for (const std::string& f : {groups_file, network_file, system_file, memory_file})
    in.outputs.add("export chakra DIR", f);

  StepLimits limits;
  limits.limits.max_ops = 2e7;
  limits.limits.max_memory = max_memory_bytes(in.text("max-memory"));
  limits.memory_hint = "use fewer or larger micro-batches";
  std::vector<run::Result> sims =
      simulate_all({scenario}, prepare_all({scenario}, specs, limits, &plan), in.control);
  const exports::ChakraTraces traces(sims.front());

  // The size before anything is written: each pipeline rank's first file stands for its GPUs.
  double estimate = 0.0;
  for (int r = 0; r < plan.pp; ++r)
    estimate += static_cast<double>(traces.trace(traces.npu(r, 0), &in.control).size()) *
                plan.gpus_per_rank();
  if (estimate > max_size)
    throw engine::UserError({"--max-size", 0, 0},
                            "the export would take about " + size_text(estimate) +
                                ", over --max-size (" + size_text(max_size) + ")",
                            "raise --max-size, or export a smaller layout of the scenario "
                            "(fewer nodes: --set cluster.nodes=...)");

  double bytes = 0.0;
  for (int npu = 0; npu < plan.world; ++npu) {
    const std::string file = traces.trace(npu, &in.control);
    bytes += static_cast<double>(file.size());
    in.outputs.stage((base / exports::ChakraTraces::file_name(prefix, npu)).string(), file);
  }
  const std::string groups = traces.comm_groups();
  in.outputs.stage(groups_file, groups);
  in.outputs.stage(network_file, traces.astra_network());
  in.outputs.stage(system_file, traces.astra_system());
  in.outputs.stage(memory_file, exports::ChakraTraces::astra_memory());

  const double step_s = sims.front().metrics.step_s;
  std::string out;
  if (in.format == OutputFormat::json) {
    format::JsonWriter w;
    w.begin_object();
    w.field("scenario", scenario).field("directory", dir).field("prefix", prefix);
    w.field("files", plan.world).field("bytes", bytes);
    w.field("network_file", network_file).field("system_file", system_file);
    w.field("memory_file", memory_file);
    w.field("comm_groups_file", groups_file)
        .field("comm_groups", static_cast<int>(traces.groups().size()));
    w.field("step_s", step_s);
    w.end_object();
    out = w.str();
  } else {
    out = "wrote " + std::to_string(plan.world) + " Chakra execution traces (" + prefix +
          ".0.et to " + prefix + "." + std::to_string(plan.world - 1) + ".et, " +
          format::fixed(bytes / 1e6, 1) + " MB) and " + prefix + ".comm_groups.json (" +
          std::to_string(traces.groups().size()) +
          " communicator groups), with ASTRA-sim's configuration of the cluster, in " + dir +
          "\nstepsim's step: " + format::fixed(step_s, 3) +
          " s. Replay with ASTRA-sim's analytical backend (docs/export.md):\n" +
          astra_sim_line(dir, prefix, traces.astra_dimensions());
  }
  in.outputs.finish_report(in.output, out);
  return 0;
}

}  // namespace

extern const Command kExport{
    .name = "export",
    .synopsis = "export chakra SCENARIO DIR",
    .summary = "write the step as Chakra execution traces, one per GPU, for ASTRA-sim",
    .help =
        "stepsim export chakra SCENARIO DIR [options]\n\n"
        "Simulates the scenario and writes its step as MLCommons Chakra execution traces into\n"
        "DIR (made if missing): PREFIX.<NPU>.et for every GPU of the job, as ASTRA-sim's\n"
        "workload layer opens them, and PREFIX.comm_groups.json for its\n"
        "--comm-group-configuration, with PREFIX.network.yml, PREFIX.system.json and\n"
        "PREFIX.memory.json configuring ASTRA-sim's analytical backend as the cluster.\n"
        "Compute nodes carry stepsim's durations, FLOPs and HBM\n"
        "bytes; collectives their type, size and communicator group; pipeline transfers are\n"
        "sends and receives; dependencies follow the schedule. docs/export.md shows how to\n"
        "replay them and what to compare.",
    .options = export_options,
    .files = {.min = 1,
              .fewer = "export needs a format, a scenario and an output directory",
              .hint = kExportUsage},
    .handler = export_command};

}  // namespace stepsim::cli
