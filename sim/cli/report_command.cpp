#include <boost/program_options.hpp>
#include <filesystem>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/report/html_report.hpp"
#include "sim/run/workers.hpp"
#include "sim/search/campaign.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int report_command(const Args& args) {
  po::options_description opts(
      "stepsim report SCENARIO... [-o FILE] [options]\n\n"
      "Simulates each scenario and writes one self-contained HTML page comparing them: headline\n"
      "figures and roofline verdict, roofline chart, time breakdown, schedule, link utilisation,\n"
      "memory over time and collectives; with --stress, what a failure costs (each scenario's\n"
      "stress campaign: histogram and costliest components). No scripts or external files: it\n"
      "reads offline and prints.\n\nOptions");
  std::vector<std::string> files, sets, stress_draws;
  std::string output, max_wall_text, max_ops_text = "2e7", max_memory_text, jobs = "1",
                                     trials = "100", seed = "1";
  add_common_options(opts, sets);
  opts.add_options()("output,o", po::value(&output)->value_name("FILE"),
                     "write the page to FILE (default: standard output)")(
      "exact", "simulate every cell of GPUs on its own (no symmetry classes)")(
      "shared-axis",
      "draw every scenario's schedule on one time axis, the longest step's (default: each over "
      "its own step)")("max-ops",
                       po::value(&max_ops_text)->default_value(max_ops_text)->value_name("N"),
                       "refuse scenarios needing more simulated operations (1 to 1e10)")(
      "stress", po::value(&stress_draws)->value_name("KIND[:COUNT][@LOW[-HIGH]]"),
      "add a stress campaign per scenario: faults drawn in every trial, as stepsim stress "
      "--fault; repeatable")("trials", po::value(&trials)->value_name("N"),
                             "--stress: trials (default 100, at most 100000)")(
      "seed", po::value(&seed)->value_name("S"), "--stress: the draws' seed (default 1)")(
      "jobs,j", po::value(&jobs)->value_name("N"), "--stress: threads (default 1)");
  add_max_wall_option(opts, max_wall_text);
  add_max_memory_option(opts, max_memory_text);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.empty())
    throw engine::UserError({"<command line>", 0, 0}, "report needs a scenario file",
                            "stepsim report scenarios/deepseek-v3-dualpipe.yaml -o report.html");
  for (const char* o : {"trials", "seed", "jobs"})
    require_together(vm, o, "stress", "KIND[:COUNT]");
  run::Workers workers(static_cast<int>(integer_option("jobs", jobs, 1, 256)));
  engine::RunControl control = run_control(vm, max_wall_text);
  workers.set_control(&control);
  const double max_ops = number_option("max-ops", max_ops_text, 1, 1e10);
  const double max_memory = max_memory_bytes(max_memory_text);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  const auto overrides = parse_overrides(sets);

  const std::vector<spec::ScenarioSpec> specs =
      load_scenarios(files, overrides, vm.count("exact") > 0, outputs);
  StepLimits limits;
  limits.limits.max_ops = max_ops;
  limits.limits.max_memory = max_memory;
  limits.first.bytes_per_op = limits.rest.bytes_per_op = report::kReportBytesPerOp;
  limits.memory_hint = "report fewer scenarios at once, or use fewer or larger micro-batches";
  std::vector<run::Prepared> prepared = prepare_all(files, specs, limits);
  std::vector<search::Campaign> campaigns;
  if (!stress_draws.empty()) {
    search::CampaignRequest request = parse_campaign(stress_draws, trials, seed, "--stress");
    request.max_memory = max_memory;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      auto c = search::run_campaign(files[i], specs[i], request, workers, &control);
      if (c) campaigns.push_back(std::move(*c));
    }
  }
  if (!workers.root()) return 0;
  const std::vector<run::Result> sims = simulate_all(files, std::move(prepared), control);
  std::vector<report::ReportRun> runs;
  for (std::size_t i = 0; i < sims.size(); ++i)
    runs.push_back({std::filesystem::path(files[i]).stem().string(), &sims[i],
                    campaigns.empty() ? nullptr : &campaigns[i]});
  outputs.set_control(&control);
  report::ReportOptions page;
  page.shared_axis = vm.count("shared-axis") > 0;
  outputs.finish_report(output, report::html_report(runs, page));
  return 0;
}

}  // namespace stepsim::cli
