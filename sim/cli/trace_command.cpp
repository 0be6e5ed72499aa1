// stepsim trace summarize PROFILE...: PyTorch profiler traces' GPU time by kernel class, per rank
// (profile/profile_summary.hpp); stepsim trace compare PROFILE... SCENARIO: each against the
// simulated step's same GPU (profile/profile_compare.hpp). A directory stands for the .json
// traces in it, as HTA reads a trace directory.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/profile/profile_compare.hpp"
#include "sim/report/kineto_trace.hpp"
#include "sim/report/profile_report.hpp"
#include "sim/report/trace_compare_page.hpp"

namespace stepsim::cli {

namespace {

void trace_options(boost::program_options::options_description& opts) {
  add_output_options(opts);
  add_max_wall_option(opts);
  add_max_memory_option(opts);
  opts.add_options()("html", boost::program_options::value<std::string>()->value_name("FILE"),
                     "trace compare: also write a page drawing each profile's streams above the "
                     "simulated GPU's");
}

// The trace files named: files as given, directories as their .json files in name order.
std::vector<std::string> trace_files(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!fs::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> inside;
    for (const auto& e : fs::directory_iterator(a, ec))
      if (e.path().extension() == ".json") inside.push_back(e.path().string());
    if (inside.empty())
      throw engine::UserError({a, 0, 0}, "no .json trace in this directory",
                              "name the trace files, or a directory holding them");
    std::sort(inside.begin(), inside.end());
    out.insert(out.end(), inside.begin(), inside.end());
  }
  return out;
}

const char* const kUsage =
    "stepsim trace summarize traces/ | stepsim trace compare traces/ scenarios/x.yaml";

int summarize(Invocation& in, const std::vector<std::string>& files) {
  std::vector<profile::RankSummary> ranks;
  for (const std::string& f : files) ranks.push_back(profile::summarize(f, &in.control));
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const profile::RankSummary& a, const profile::RankSummary& b) {
                     return a.file.rank < b.file.rank;
                   });
  in.outputs.finish_report(in.output,
                           in.format == OutputFormat::json  ? report::profile_summary_json(ranks)
                           : in.format == OutputFormat::csv ? report::profile_summary_csv(ranks)
                                                            : report::profile_summary_text(ranks));
  return 0;
}

// Each profile against the simulated step's GPU of its rank: the same pipeline rank, simulated on
// its first GPU (the others of the rank behave alike but for symmetry classes).
int compare(Invocation& in, const std::vector<std::string>& traces, const std::string& scenario) {
  const auto specs = load_scenarios({scenario}, in.overrides, false, in.outputs);
  StepLimits limits;
  limits.limits.max_ops = 2e7;
  limits.limits.max_memory = max_memory_bytes(in.text("max-memory"));
  limits.memory_hint = "use fewer or larger micro-batches";
  std::vector<run::Result> sims =
      simulate_all({scenario}, prepare_all({scenario}, specs, limits), in.control);
  const run::Result& step = sims.front();
  const workload::ParallelPlan& plan = step.plan();
  std::vector<report::ProfileComparison> out;
  for (const std::string& f : traces) {
    profile::RankSummary measured = profile::summarize(f, &in.control, true);
    const int gpu = measured.file.rank;
    if (gpu < 0)
      throw engine::UserError({f, 0, 0}, "the trace names no rank (distributedInfo.rank)",
                              "compare the trace of one rank of a distributed job");
    if (gpu >= plan.world)
      throw engine::UserError({f, 0, 0},
                              "rank " + std::to_string(gpu) + " is not among the scenario's " +
                                  std::to_string(plan.world) + " GPUs",
                              "compare it with the scenario of the job it profiled");
    const int rank = plan.rank_of_gpu(gpu);
    const std::string trace = report::kineto_trace(step, rank, &in.control);
    std::istringstream text(trace);
    const profile::RankSummary simulated =
        profile::summarize(text, "the simulated step", &in.control, true);
    report::ProfileComparison pc{profile::compare(measured, simulated),
                                 scenario + ", pipeline rank " + std::to_string(rank) +
                                     " (simulated on GPU " + std::to_string(plan.first_gpu(rank)) +
                                     ")",
                                 {},
                                 {}};
    if (in.vm.count("html")) {
      // One time axis: the longer of the two spans from each side's first GPU event.
      const double span_us = 1e6 * std::max(measured.span_s, simulated.span_s);
      pc.measured_bins = profile::bin_streams(f, measured.start_us, measured.start_us + span_us,
                                              report::kCompareBins, &in.control);
      std::istringstream again(trace);
      pc.simulated_bins =
          profile::bin_streams(again, "the simulated step", simulated.start_us,
                               simulated.start_us + span_us, report::kCompareBins, &in.control);
    }
    out.push_back(std::move(pc));
  }
  if (in.vm.count("html")) in.outputs.stage(in.text("html"), report::trace_compare_page(out));
  in.outputs.finish_report(in.output,
                           in.format == OutputFormat::json  ? report::profile_compare_json(out)
                           : in.format == OutputFormat::csv ? report::profile_compare_csv(out)
                                                            : report::profile_compare_text(out));
  return 0;
}

bool is_scenario(const std::string& f) {
  const std::string ext = std::filesystem::path(f).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

int trace(Invocation& in) {
  const std::string action = in.files.front();
  if (action != "summarize" && action != "compare")
    throw engine::UserError({"<command line>", 0, 0}, "unknown action '" + action + "' of trace",
                            kUsage);
  std::vector<std::string> args(in.files.begin() + 1, in.files.end());
  std::string scenario;
  if (action == "compare") {
    if (args.size() < 2 || !is_scenario(args.back()))
      throw engine::UserError({"<command line>", 0, 0},
                              "trace compare needs trace files, then the scenario they ran",
                              kUsage);
    scenario = args.back();
    args.pop_back();
  }
  if (args.empty())
    throw engine::UserError({"<command line>", 0, 0}, "trace summarize needs a trace file", kUsage);
  if (action == "summarize" && in.vm.count("html"))
    throw engine::UserError({"--html", 0, 0}, "trace summarize draws no page",
                            "--html goes with trace compare");
  if (action == "summarize" && !in.sets.empty())
    throw engine::UserError({"<command line>", 0, 0}, "trace summarize takes no --set",
                            "it reads profiles, not scenarios");
  const std::vector<std::string> files = trace_files(args);
  if (in.vm.count("html")) in.outputs.add("--html", in.text("html"));
  in.outputs.check_inputs(files);
  return action == "summarize" ? summarize(in, files) : compare(in, files, scenario);
}

}  // namespace

extern const Command kTrace{
    .name = "trace",
    .synopsis = "trace summarize|compare PROFILE...",
    .summary = "PyTorch profiler traces: GPU time by kernel class per rank; against a scenario",
    .help =
        "stepsim trace summarize PROFILE.json... [options]\n\n"
        "Reads PyTorch profiler (Kineto) traces, streamed, and prints per rank the GPU time of\n"
        "each kernel class (GEMM by pass where the name says it, attention, memory-bound by\n"
        "pattern, communication by collective, copies and fills), its count and share of the\n"
        "span, and the idle time when no stream of the GPU ran anything. A directory stands for\n"
        "the .json traces in it (what `stepsim run --trace-dir` writes).\n\n"
        "stepsim trace compare PROFILE.json... SCENARIO.yaml [options]\n\n"
        "Simulates the scenario and sets each profile beside the simulated step's GPU of the\n"
        "same rank: per kernel class, per layer (where op annotations name layers) and per\n"
        "kernel name, the measured and the simulated time and their ratio. Classes the profile\n"
        "has and the step does not are listed as not simulated.",
    .options = trace_options,
    .files = {.min = 1,
              .fewer = "trace needs an action and trace files",
              .hint = "stepsim trace summarize traces/"},
    .handler = trace};

}  // namespace stepsim::cli
