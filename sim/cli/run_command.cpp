#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <filesystem>

#include "sim/cli/commands.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/jobs_report.hpp"
#include "sim/report/schedule_svg.hpp"
#include "sim/report/step_report.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

// "0-3,7": ranks and inclusive ranges, each a plain whole number within [0, devices).
std::vector<int> parse_ranks(const std::string& text, int devices) {
  const engine::UserError bad(
      {"--trace-ranks", 0, 0}, "bad pipeline rank list '" + text + "'",
      "pipeline ranks 0-" + std::to_string(devices - 1) + ", e.g. 0-3 or 0,15");
  auto rank = [&](const std::string& s) {
    int v = -1;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0 || v >= devices)
      throw bad;
    return v;
  };
  std::vector<int> out;
  std::size_t i = 0;
  while (true) {
    const auto comma = text.find(',', i);
    const std::string item =
        text.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    const auto dash = item.find('-');
    const int a = rank(item.substr(0, dash));
    const int b = dash == std::string::npos ? a : rank(item.substr(dash + 1));
    if (b < a) throw bad;
    for (int r = a; r <= b; ++r)
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

int run_or_compare(const Args& args, bool compare) {
  po::options_description opts(
      compare ? "stepsim compare SCENARIO... [options]\n\nSimulates each scenario and puts them "
                "side by side.\n\nOptions"
              : "stepsim run SCENARIO [options]\n\n"
                "Simulates one training step: every micro-batch's kernels and collectives on the "
                "pipeline's\n"
                "devices, over the cluster's network. Reports step time, compute, exposed "
                "communication,\n"
                "bubble and idle per pipeline rank next to the roofline bound.\n\nOptions");
  std::vector<std::string> files, sets, with;
  std::string output, report_file, trace_file, svg_file, trace_ranks, detail = "op";
  std::string max_wall_text, max_ops_text = "2e7", max_trace_text = "2e7", max_memory_text;
  add_common_options(opts, sets);
  add_output_options(opts, output);
  opts.add_options()(
      "exact",
      "simulate every cell of GPUs (tensor- and expert-parallel groups) on its own, without "
      "merging the ones that behave alike into symmetry classes")(
      "timing",
      "show the simulation's own wall time (sim.wall_s); without it every output is byte-identical "
      "run to run")("max-ops",
                    po::value(&max_ops_text)->default_value(max_ops_text)->value_name("N"),
                    "refuse scenarios needing more simulated operations (1 to 1e10)");
  add_max_wall_option(opts, max_wall_text);
  add_max_memory_option(opts, max_memory_text);
  if (!compare)
    opts.add_options()("with", po::value(&with)->value_name("SCENARIO"),
                       "another job on the same fabric, placed on the nodes after the ones "
                       "before it; repeatable. Every job is simulated beside the others and alone; "
                       "--set applies to every job, --report, --trace and --svg to the first")(
        "report", po::value(&report_file)->value_name("FILE"),
        "also write the JSON report to this file")(
        "trace", po::value(&trace_file)->value_name("FILE"),
        "write a Chrome trace (Perfetto, chrome://tracing) to this file")(
        "svg", po::value(&svg_file)->value_name("FILE"),
        "write the pipeline schedule diagram (every rank's compute stream) as SVG")(
        "trace-ranks", po::value(&trace_ranks)->value_name("LIST"),
        "pipeline ranks in the trace, e.g. 0-3 or 0,15 (default: all)")(
        "trace-detail", po::value(&detail)->default_value(detail)->value_name("D"),
        "op (every kernel group and transfer) | layer (a stream's consecutive ops of one layer "
        "as one event) | kernel (each op's kernels nested in it, as stepsim kernels lists them)")(
        "max-trace-events",
        po::value(&max_trace_text)->default_value(max_trace_text)->value_name("N"),
        "refuse traces with more events (1 to 1e10)");
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  const engine::SourceLoc cli{"<command line>", 0, 0};
  if (files.empty())
    throw engine::UserError(cli,
                            std::string(compare ? "compare" : "run") + " needs a scenario file");
  if (!compare && files.size() > 1)
    throw engine::UserError(cli, "run takes one scenario", "use stepsim compare for several");
  report::TraceDetail trace_detail = report::TraceDetail::op;
  if (detail == "layer")
    trace_detail = report::TraceDetail::layer;
  else if (detail == "kernel")
    trace_detail = report::TraceDetail::kernel;
  else if (detail != "op")
    throw engine::UserError({"--trace-detail", 0, 0}, "unknown detail '" + detail + "'",
                            "op, layer or kernel");
  for (const char* o : {"trace-ranks", "trace-detail", "max-trace-events"})
    require_together(vm, o, "trace");
  engine::RunControl control = run_control(vm, max_wall_text);
  const double max_ops = number_option("max-ops", max_ops_text, 1, 1e10);
  const double max_trace_events = number_option("max-trace-events", max_trace_text, 1, 1e10);
  const double max_memory = max_memory_bytes(max_memory_text);
  const OutputFormat out_format = output_format(vm);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  if (vm.count("report")) outputs.add("--report", report_file);
  if (vm.count("trace")) outputs.add("--trace", trace_file);
  if (vm.count("svg")) outputs.add("--svg", svg_file);
  const auto overrides = parse_overrides(sets);
  const bool timing = vm.count("timing") > 0;

  if (!with.empty()) files.insert(files.end(), with.begin(), with.end());
  const std::vector<spec::ScenarioSpec> specs =
      load_scenarios(files, overrides, vm.count("exact") > 0, outputs);
  if (!with.empty()) run::shared_fabric(specs);
  const workload::ParallelPlan first_plan = workload::make_plan(specs[0]);
  std::vector<int> ranks;
  if (!trace_ranks.empty()) ranks = parse_ranks(trace_ranks, first_plan.pp);
  // Refuse what would not fit in memory, or a trace too large to open, before spending time on it.
  // The simulations of a comparison stay in memory together: their estimates add up.
  StepLimits limits;
  limits.limits.max_ops = max_ops;
  limits.limits.max_memory = max_memory;
  limits.memory_hint = "use fewer or larger micro-batches, select ranks with --trace-ranks";
  if (!trace_file.empty()) {
    limits.first.trace_events_per_op = report::kTraceEventsPerOp[static_cast<int>(trace_detail)];
    limits.first.trace_bytes_per_event = report::kTraceBytesPerEvent;
    limits.first.trace_ranks = static_cast<int>(ranks.size());
    limits.first.max_trace_events = max_trace_events;
  }
  if (!svg_file.empty()) limits.first.bytes_per_op = report::kSvgBytesPerOp;
  std::vector<run::Result> sims;
  std::vector<run::JobRun> jobs;
  if (with.empty()) {
    sims = simulate_all(files, prepare_all(files, specs, limits, &first_plan), control);
  } else {
    jobs = run::simulate_jobs(specs, limits_of(files, limits), &control);
  }
  const run::Result& first = jobs.empty() ? sims.front() : jobs.front().sim;
  std::vector<std::string> labels;
  for (const std::string& f : files) labels.push_back(std::filesystem::path(f).stem().string());

  std::vector<const run::Result*> runs;
  for (const run::Result& sim : sims) runs.push_back(&sim);
  for (const run::JobRun& job : jobs) runs.push_back(&job.sim);
  std::string text;
  if (out_format == OutputFormat::csv) {
    text = compare || !jobs.empty() ? report::step_comparison_csv(runs, labels)
                                    : report::step_ranks_csv(first, labels[0]);
  } else if (!jobs.empty()) {
    if (out_format == OutputFormat::json) {
      format::JsonWriter w;
      report::jobs_json(w, jobs, labels, timing);
      text = w.str();
      if (text.back() != '\n') text += '\n';
    } else {
      text = report::jobs_text(jobs, labels, timing);
    }
  } else if (out_format == OutputFormat::json) {
    format::JsonWriter w;
    if (sims.size() > 1) w.begin_array();
    for (const run::Result& sim : sims) report::step_json(w, sim, timing);
    if (sims.size() > 1) w.end_array();
    text = w.str();
    if (text.back() != '\n') text += '\n';
  } else {
    for (const run::Result& sim : sims) text += report::step_text(sim, timing) + "\n";
    if (compare) text += report::step_comparison_text(runs, labels);
  }
  outputs.set_control(&control);
  if (!report_file.empty()) {
    format::JsonWriter w;
    report::step_json(w, first, timing);
    outputs.stage(report_file, w.str());
  }
  if (!trace_file.empty()) {
    report::TraceOptions topt;
    topt.ranks = ranks;
    topt.detail = trace_detail;
    topt.control = &control;
    outputs.stage(trace_file, report::chrome_trace(first, topt));
  }
  if (!svg_file.empty()) outputs.stage(svg_file, report::schedule_svg(first));
  outputs.finish_report(output, text);
  return 0;
}

}  // namespace

int run_command(const Args& args) {
  return run_or_compare(args, false);
}
int compare_command(const Args& args) {
  return run_or_compare(args, true);
}

}  // namespace stepsim::cli
