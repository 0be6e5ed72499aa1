// stepsim run SCENARIO (one step, its trace and diagram; --with: jobs on one fabric) and stepsim
// compare SCENARIO... (several steps side by side).
#include <algorithm>
#include <charconv>
#include <filesystem>

#include "sim/cli/scenarios.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/jobs_report.hpp"
#include "sim/report/kineto_trace.hpp"
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

void step_options(po::options_description& opts) {
  add_output_options(opts);
  opts.add_options()(
      "exact",
      "simulate every cell of GPUs (tensor- and expert-parallel groups) on its own, without "
      "merging the ones that behave alike into symmetry classes")(
      "no-bundle",
      "simulate every GPU's transfers of every collective as flows of their own, without "
      "bundling symmetric ones (the exact reference for bundling; slower)")(
      "timing",
      "show the simulation's own wall time (sim.wall_s); without it every output is byte-identical "
      "run to run")("max-ops", po::value<std::string>()->default_value("2e7")->value_name("N"),
                    "refuse scenarios needing more simulated operations (1 to 1e10)");
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

void run_options(po::options_description& opts) {
  step_options(opts);
  opts.add_options()("with", po::value<std::vector<std::string>>()->value_name("SCENARIO"),
                     "another job on the same fabric, placed on the nodes after the ones "
                     "before it; repeatable. Every job is simulated beside the others and alone; "
                     "--set applies to every job, --report, --trace and --svg to the first")(
      "report", po::value<std::string>()->value_name("FILE"),
      "also write the JSON report to this file")(
      "trace", po::value<std::string>()->value_name("FILE"),
      "write a Chrome trace (Perfetto, chrome://tracing) to this file")(
      "trace-dir", po::value<std::string>()->value_name("DIR"),
      "write a PyTorch profiler (Kineto) trace per GPU shown into this directory, "
      "rank-<GPU>.pt.trace.json, as Holistic Trace Analysis reads them (created if missing)")(
      "svg", po::value<std::string>()->value_name("FILE"),
      "write the pipeline schedule diagram (every rank's compute stream) as SVG")(
      "trace-ranks", po::value<std::string>()->value_name("LIST"),
      "pipeline ranks in the trace (or the trace directory: their first GPUs), e.g. 0-3 or "
      "0,15 (default: all)")(
      "trace-detail", po::value<std::string>()->default_value("op")->value_name("D"),
      "op (every kernel group and transfer) | layer (a stream's consecutive ops of one layer "
      "as one event) | kernel (each op's kernels nested in it, as stepsim kernels lists them)")(
      "max-trace-events", po::value<std::string>()->default_value("2e7")->value_name("N"),
      "refuse traces with more events (1 to 1e10)");
}

// What run writes besides its table: the JSON report, the trace, the diagram.
struct StepFiles {
  std::string report, trace, svg;
  std::string trace_dir;  // the Kineto traces' directory
  report::TraceOptions trace_options;
  double max_trace_events = 2e7;
};

StepFiles step_files(Invocation& in) {
  StepFiles f;
  if (in.vm.count("trace-detail")) {
    const std::string detail = in.text("trace-detail");
    if (detail == "layer")
      f.trace_options.detail = report::TraceDetail::layer;
    else if (detail == "kernel")
      f.trace_options.detail = report::TraceDetail::kernel;
    else if (detail != "op")
      throw engine::UserError({"--trace-detail", 0, 0}, "unknown detail '" + detail + "'",
                              "op, layer or kernel");
  }
  for (const char* o : {"trace-detail", "max-trace-events"}) require_together(in.vm, o, "trace");
  if (!in.vm.count("trace-dir")) require_together(in.vm, "trace-ranks", "trace");
  if (in.vm.count("max-trace-events")) f.max_trace_events = in.number("max-trace-events", 1, 1e10);
  f.report = in.text("report");
  f.trace = in.text("trace");
  f.svg = in.text("svg");
  if (in.vm.count("report")) in.outputs.add("--report", f.report);
  if (in.vm.count("trace")) in.outputs.add("--trace", f.trace);
  if (in.vm.count("svg")) in.outputs.add("--svg", f.svg);
  if (in.vm.count("trace-dir"))
    f.trace_dir = output_directory("--trace-dir", in.text("trace-dir"), false);
  return f;
}

// The limits of the steps (their memory adds up), with the first step's outputs (its trace's
// ranks set once its layout is known).
StepLimits step_limits(const Invocation& in, const StepFiles& f) {
  StepLimits limits;
  limits.limits.max_ops = in.number("max-ops", 1, 1e10);
  limits.limits.max_memory = max_memory_bytes(in.text("max-memory"));
  limits.memory_hint = "use fewer or larger micro-batches, select ranks with --trace-ranks";
  if (!f.trace.empty() || !f.trace_dir.empty()) {
    // The Kineto files hold every kernel, as a kernel-detail trace does.
    limits.first.trace_events_per_op =
        (f.trace.empty() ? 0.0
                         : report::kTraceEventsPerOp[static_cast<int>(f.trace_options.detail)]) +
        (f.trace_dir.empty()
             ? 0.0
             : report::kTraceEventsPerOp[static_cast<int>(report::TraceDetail::kernel)]);
    limits.first.trace_bytes_per_event = report::kTraceBytesPerEvent;
    limits.first.max_trace_events = f.max_trace_events;
  }
  if (!f.svg.empty()) limits.first.bytes_per_op = report::kSvgBytesPerOp;
  return limits;
}

// The table: text (with the comparison), JSON or CSV, of the steps or of the jobs.
std::string step_table(const Invocation& in, const std::vector<const run::Result*>& runs,
                       const std::vector<run::JobRun>& jobs, const std::vector<std::string>& labels,
                       bool compare) {
  const bool timing = in.has("timing");
  if (in.format == OutputFormat::csv)
    return compare || !jobs.empty() ? report::step_comparison_csv(runs, labels)
                                    : report::step_ranks_csv(*runs.front(), labels[0]);
  if (in.format == OutputFormat::json) {
    format::JsonWriter w;
    if (!jobs.empty()) {
      report::jobs_json(w, jobs, labels, timing);
    } else {
      if (runs.size() > 1) w.begin_array();
      for (const run::Result* r : runs) report::step_json(w, *r, timing);
      if (runs.size() > 1) w.end_array();
    }
    std::string text = w.str();
    return text.back() == '\n' ? text : text + "\n";
  }
  if (!jobs.empty()) return report::jobs_text(jobs, labels, timing);
  std::string text;
  for (const run::Result* r : runs) text += report::step_text(*r, timing) + "\n";
  return compare ? text + report::step_comparison_text(runs, labels) : text;
}

int run_or_compare(Invocation& in, bool compare) {
  StepFiles files = compare ? StepFiles{} : step_files(in);
  StepLimits limits = step_limits(in, files);
  std::vector<std::string> scenarios = in.files, with = in.texts("with");
  scenarios.insert(scenarios.end(), with.begin(), with.end());
  auto specs = load_scenarios(scenarios, in.overrides, in.has("exact"), in.outputs, !with.empty());
  for (spec::ScenarioSpec& s : specs) s.bundle = !in.has("no-bundle");
  if (!with.empty()) run::shared_fabric(specs);
  const workload::ParallelPlan first_plan = workload::make_plan(specs[0]);
  if (in.vm.count("trace-ranks"))
    files.trace_options.ranks = parse_ranks(in.text("trace-ranks"), first_plan.pp);
  std::vector<report::KinetoFile> kineto;
  if (!files.trace_dir.empty()) {
    output_directory("--trace-dir", files.trace_dir, true);
    kineto = report::kineto_files(first_plan, files.trace_options.ranks);
    for (const report::KinetoFile& k : kineto)
      in.outputs.add("--trace-dir", (std::filesystem::path(files.trace_dir) / k.name()).string());
  }
  // Refuse what would not fit in memory, or a trace too large to open, before spending time on it.
  limits.first.trace_ranks = static_cast<int>(files.trace_options.ranks.size());
  std::vector<run::Result> sims;
  std::vector<run::JobRun> jobs;
  if (with.empty())
    sims = simulate_all(scenarios, prepare_all(scenarios, specs, limits, &first_plan), in.control);
  else
    jobs = run::simulate_jobs(specs, limits_of(scenarios, limits), &in.control);
  std::vector<const run::Result*> runs;
  for (const run::Result& sim : sims) runs.push_back(&sim);
  for (const run::JobRun& job : jobs) runs.push_back(&job.sim);
  std::vector<std::string> labels;
  for (const std::string& f : scenarios) labels.push_back(std::filesystem::path(f).stem().string());
  const run::Result& first = *runs.front();
  if (!files.report.empty()) {
    format::JsonWriter w;
    report::step_json(w, first, in.has("timing"));
    in.outputs.stage(files.report, w.str());
  }
  files.trace_options.control = &in.control;
  if (!files.trace.empty())
    in.outputs.stage(files.trace, report::chrome_trace(first, files.trace_options));
  if (!files.svg.empty()) {
    // Boxes closer than half a pixel joined, as in the report: a step of thousands of ops on a
    // 1400-pixel axis is otherwise tens of thousands of invisible rectangles.
    report::ScheduleView view;
    view.join_subpixel = true;
    in.outputs.stage(files.svg, report::schedule_svg(first, view));
  }
  for (const report::KinetoFile& k : kineto)
    in.outputs.stage((std::filesystem::path(files.trace_dir) / k.name()).string(),
                     report::kineto_trace(first, k.rank, &in.control));
  in.outputs.finish_report(in.output, step_table(in, runs, jobs, labels, compare));
  return 0;
}

}  // namespace

extern const Command kRun{
    .name = "run",
    .synopsis = "run SCENARIO",
    .summary = "simulate one training step: step time, bubble, exposed communication, trace",
    .help =
        "stepsim run SCENARIO [options]\n\n"
        "Simulates one training step: every micro-batch's kernels and collectives on the "
        "pipeline's\n"
        "devices, over the cluster's network. Reports step time, compute, exposed "
        "communication,\n"
        "bubble and idle per pipeline rank next to the roofline bound.",
    .options = run_options,
    .files = {.min = 1,
              .max = 1,
              .fewer = "run needs a scenario file",
              .more = "run takes one scenario",
              .more_hint = "use stepsim compare for several"},
    .handler = [](Invocation& in) { return run_or_compare(in, false); }};

extern const Command kCompare{
    .name = "compare",
    .synopsis = "compare SCENARIO...",
    .summary = "simulate several scenarios side by side",
    .help =
        "stepsim compare SCENARIO... [options]\n\nSimulates each scenario and puts them side "
        "by side.",
    .options = step_options,
    .files = {.min = 1, .fewer = "compare needs a scenario file"},
    .handler = [](Invocation& in) { return run_or_compare(in, true); }};

}  // namespace stepsim::cli
