#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "sim/analysis/step_simulation.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/schedule_svg.hpp"
#include "sim/report/step_report.hpp"
#include "sim/cli/interrupt.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

std::vector<int> parse_ranks(const std::string& text, int devices) {
  std::vector<int> out;
  for (std::size_t i = 0; i <= text.size();) {
    const auto comma = text.find(',', i);
    const std::string item = text.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    const auto dash = item.find('-');
    try {
      const int a = std::stoi(item.substr(0, dash));
      const int b = dash == std::string::npos ? a : std::stoi(item.substr(dash + 1));
      if (a < 0 || b < a || b >= devices) throw std::out_of_range("range");
      for (int r = a; r <= b; ++r) out.push_back(r);
    } catch (const std::exception&) {
      throw engine::UserError({"--trace-ranks", 0, 0}, "bad pipeline rank list '" + text + "'",
                              "pipeline ranks 0-" + std::to_string(devices - 1) + ", e.g. 0-3 or 0,15");
    }
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return out;
}

}  // namespace

int run_command(const Args& args, bool compare) {
  po::options_description opts(
      compare ? "stepsim compare SCENARIO... [options]\n\nSimulates each scenario and puts them side by side.\n\nOptions"
              : "stepsim run SCENARIO [options]\n\n"
                "Simulates one training step: every micro-batch's kernels and collectives on the pipeline's\n"
                "devices, over the cluster's network. Reports step time, compute, exposed communication,\n"
                "bubble and idle per pipeline rank next to the roofline bound.\n\nOptions");
  std::vector<std::string> files, sets;
  std::string report_file, trace_file, svg_file, trace_ranks, detail = "op";
  double max_wall = 0.0, max_ops = 2e7, max_trace_events = 2e7;
  add_common_options(opts, sets);
  opts.add_options()("json", "print JSON instead of text")(
      "timing", "show the simulation's own wall time (sim.wall_s); without it every output is byte-identical run to run")(
      "max-wall", po::value(&max_wall), "stop (exit 3, no output) after this many seconds of wall time")(
      "max-ops", po::value(&max_ops), "refuse scenarios needing more simulated operations (default 2e7)");
  if (!compare)
    opts.add_options()("report", po::value(&report_file), "also write the JSON report to this file")(
        "trace", po::value(&trace_file), "write a Chrome trace (Perfetto, chrome://tracing) to this file")(
        "svg", po::value(&svg_file), "write the pipeline schedule diagram (every rank's compute stream) as SVG")(
        "trace-ranks", po::value(&trace_ranks), "pipeline ranks in the trace, e.g. 0-3 or 0,15 (default: all)")(
        "trace-detail", po::value(&detail), "op (every kernel group and transfer) | layer (one event per layer)")(
        "max-trace-events", po::value(&max_trace_events), "refuse traces with more events (default 2e7)");
  const po::variables_map vm = parse_args(args, opts, files);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  const engine::SourceLoc cli{"<command line>", 0, 0};
  if (files.empty()) throw engine::UserError(cli, std::string(compare ? "compare" : "run") + " needs a scenario file");
  if (!compare && files.size() > 1) throw engine::UserError(cli, "run takes one scenario", "use stepsim compare for several");
  if (detail != "op" && detail != "layer") throw engine::UserError({"--trace-detail", 0, 0}, "unknown detail '" + detail + "'", "op or layer");
  for (const std::string* f : {&report_file, &trace_file, &svg_file})
    if (!f->empty()) OutputSet::check_directory(*f);
  const auto overrides = parse_overrides(sets);
  const bool timing = vm.count("timing") > 0;

  std::vector<workload::ScenarioSpec> specs;
  std::vector<analysis::StepSimulation> sims;
  for (const auto& f : files) specs.push_back(config::load_scenario(f, overrides));
  std::vector<int> ranks;
  if (!trace_ranks.empty()) {
    const int devices = workload::make_plan(specs[0]).pp;
    ranks = parse_ranks(trace_ranks, devices);
  }
  if (max_wall < 0.0 || max_ops <= 0.0 || max_trace_events <= 0.0)
    throw engine::UserError(cli, "--max-wall, --max-ops and --max-trace-events must be positive");
  engine::RunControl control;
  control.interrupted = &interrupted();
  if (max_wall > 0.0) {
    control.budget_s = max_wall;
    control.deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(max_wall));
  }
  if (!trace_file.empty()) {
    // Refuse a trace too large to open before spending time on it.
    const auto plan = workload::make_plan(specs[0]);
    const double shown = ranks.empty() ? plan.pp : static_cast<double>(ranks.size());
    const double events = analysis::estimate_ops(specs[0], plan) * shown / plan.pp * (detail == "layer" ? 0.4 : 1.0);
    if (events > max_trace_events)
      throw engine::UserError({"--trace", 0, 0},
                              "the trace would hold about " + std::to_string(static_cast<long long>(events)) +
                                  " events, more than the limit of " + std::to_string(static_cast<long long>(max_trace_events)),
                              "select pipeline ranks with --trace-ranks, use --trace-detail layer, or raise --max-trace-events");
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    sims.push_back(analysis::simulate_step(specs[i], &control, max_ops));
    const auto& s = sims.back();
    if (s.peak_memory_bytes > s.roofline.memory.capacity)
      spdlog::warn("{}: peak memory {:.1f} GB per GPU exceeds the device's {:.1f} GB", files[i], s.peak_memory_bytes / 1e9,
                   s.roofline.memory.capacity / 1e9);
  }

  std::string text;
  if (vm.count("json")) {
    report::JsonWriter w;
    if (sims.size() > 1) w.begin_array();
    for (std::size_t i = 0; i < sims.size(); ++i) report::step_json(w, sims[i], specs[i], timing);
    if (sims.size() > 1) w.end_array();
    text = w.str();
    if (text.back() != '\n') text += '\n';
  } else {
    for (std::size_t i = 0; i < sims.size(); ++i) text += report::step_text(sims[i], specs[i], timing) + "\n";
    if (compare) {
      std::vector<const analysis::StepSimulation*> ptrs;
      std::vector<std::string> labels;
      for (std::size_t i = 0; i < sims.size(); ++i) {
        ptrs.push_back(&sims[i]);
        labels.push_back(std::filesystem::path(files[i]).stem().string());
      }
      text += report::step_comparison_text(ptrs, labels);
    }
  }
  OutputSet outputs;
  if (!report_file.empty()) {
    report::JsonWriter w;
    report::step_json(w, sims[0], specs[0], timing);
    outputs.stage(report_file, w.str());
  }
  if (!trace_file.empty()) {
    report::TraceOptions topt;
    topt.ranks = ranks;
    topt.per_layer = detail == "layer";
    outputs.stage(trace_file, report::chrome_trace(sims[0], specs[0], topt));
  }
  if (!svg_file.empty()) outputs.stage(svg_file, report::schedule_svg(sims[0], specs[0]));
  outputs.commit();
  std::cout << text;
  return 0;
}

}  // namespace stepsim::cli
