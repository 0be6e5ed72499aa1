#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/report/html_report.hpp"
#include "sim/run/step_simulation.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

// The page beside the simulations (the schedule diagrams' boxes, the link strips, the HTML):
// measured, the three DeepSeek-V3 scenarios' page adds under 1 MB to their simulations' 62 MB
// peak; allowed a tenth of the simulation's own estimate per operation.
constexpr double kReportBytesPerOp = 20.0;

}  // namespace

int report_command(const Args& args) {
  po::options_description opts(
      "stepsim report SCENARIO... [-o FILE] [options]\n\n"
      "Simulates each scenario and writes one self-contained HTML page comparing them: headline\n"
      "figures and roofline verdict, roofline chart, time breakdown, schedule, link utilisation,\n"
      "memory over time and collectives. No scripts or external files: it reads offline and\n"
      "prints.\n\nOptions");
  std::vector<std::string> files, sets;
  std::string output, max_wall_text, max_ops_text = "2e7", max_memory_text;
  add_common_options(opts, sets);
  opts.add_options()("output,o", po::value(&output)->value_name("FILE"),
                     "write the page to FILE (default: standard output)")(
      "exact", "simulate every cell of GPUs on its own (no symmetry classes)")(
      "max-ops", po::value(&max_ops_text)->default_value(max_ops_text)->value_name("N"),
      "refuse scenarios needing more simulated operations (1 to 1e10)");
  add_max_wall_option(opts, max_wall_text);
  add_max_memory_option(opts, max_memory_text);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.empty())
    throw engine::UserError({"<command line>", 0, 0}, "report needs a scenario file",
                            "stepsim report scenarios/deepseek-v3-dualpipe.yaml -o report.html");
  engine::RunControl control = run_control(vm, max_wall_text);
  const double max_ops = number_option("max-ops", max_ops_text, 1, 1e10);
  const double max_memory = max_memory_bytes(max_memory_text);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  const auto overrides = parse_overrides(sets);

  const std::vector<spec::ScenarioSpec> specs =
      load_scenarios(files, overrides, vm.count("exact") > 0, outputs);
  double total_bytes = 0.0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto plan = workload::make_plan(specs[i]);
    run::check_ops(specs[i], plan, max_ops);
    total_bytes += run::estimate_memory_bytes(specs[i], plan) +
                   kReportBytesPerOp * run::estimate_ops(specs[i], plan);
    check_memory(total_bytes, max_memory,
                 files[i] + (i > 0 ? ": simulating this step after the ones before it"
                                   : ": simulating this step"),
                 "report fewer scenarios at once, or use fewer or larger micro-batches");
  }
  const std::vector<run::StepSimulation> sims = simulate_all(files, specs, control, max_ops);
  std::vector<report::ReportRun> runs;
  for (std::size_t i = 0; i < sims.size(); ++i)
    runs.push_back({std::filesystem::path(files[i]).stem().string(), &sims[i], &specs[i]});
  outputs.set_control(&control);
  outputs.finish_report(output, report::html_report(runs));
  return 0;
}

}  // namespace stepsim::cli
