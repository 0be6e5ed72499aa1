// stepsim report SCENARIO... -o FILE: one self-contained HTML page comparing simulated steps
// (report/html_report.hpp), with --stress a campaign per scenario.
#include <filesystem>

#include "sim/cli/scenarios.hpp"
#include "sim/report/html_report.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void report_options(po::options_description& opts) {
  opts.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                     "write the page to FILE (default: standard output)")(
      "exact", "simulate every cell of GPUs on its own (no symmetry classes)")(
      "own-axis",
      "draw each scenario's schedule over its own step (default: all on the longest step's time "
      "scale, a step under a third of it zoomed beside itself)")(
      "max-ops", po::value<std::string>()->default_value("2e7")->value_name("N"),
      "refuse scenarios needing more simulated operations (1 to 1e10)")(
      "stress", po::value<std::vector<std::string>>()->value_name("KIND[:COUNT][@LOW[-HIGH]]"),
      "add a stress campaign per scenario: faults drawn in every trial, as stepsim stress "
      "--fault; repeatable")("trials", po::value<std::string>()->value_name("N"),
                             "--stress: trials (default 100, at most 100000)")(
      "seed", po::value<std::string>()->value_name("S"), "--stress: the draws' seed (default 1)")(
      "jobs,j", po::value<std::string>()->value_name("N"), "--stress: threads (default 1)");
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

int html_report(Invocation& in) {
  for (const char* o : {"trials", "seed", "jobs"})
    require_together(in.vm, o, "stress", "KIND[:COUNT]");
  StepLimits limits;
  limits.limits.max_ops = in.number("max-ops", 1, 1e10);
  limits.limits.max_memory = max_memory_bytes(in.text("max-memory"));
  limits.first.bytes_per_op = limits.rest.bytes_per_op = report::kReportBytesPerOp;
  limits.memory_hint = "report fewer scenarios at once, or use fewer or larger micro-batches";
  const auto specs = load_scenarios(in.files, in.overrides, in.has("exact"), in.outputs);
  std::vector<run::Prepared> prepared = prepare_all(in.files, specs, limits);
  std::vector<search::Campaign> campaigns;
  if (in.vm.count("stress")) {
    search::CampaignRequest request =
        parse_campaign(in.texts("stress"), in.vm.count("trials") ? in.text("trials") : "100",
                       in.vm.count("seed") ? in.text("seed") : "1", "--stress");
    request.max_memory = limits.limits.max_memory;
    for (std::size_t i = 0; i < specs.size(); ++i)
      if (auto c = search::run_campaign(in.files[i], specs[i], request, *in.workers, &in.control))
        campaigns.push_back(std::move(*c));
  }
  if (!in.workers->root()) return 0;
  const std::vector<run::Result> sims = simulate_all(in.files, std::move(prepared), in.control);
  std::vector<report::ReportRun> runs;
  for (std::size_t i = 0; i < sims.size(); ++i)
    runs.push_back({std::filesystem::path(in.files[i]).stem().string(), &sims[i],
                    campaigns.empty() ? nullptr : &campaigns[i]});
  report::ReportOptions page;
  page.own_axis = in.has("own-axis");
  in.outputs.finish_report(in.output, report::html_report(runs, page));
  return 0;
}

}  // namespace

extern const Command kReport{
    .name = "report",
    .synopsis = "report SCENARIO...",
    .summary = "one self-contained HTML page comparing simulated steps (-o FILE)",
    .help =
        "stepsim report SCENARIO... [-o FILE] [options]\n\n"
        "Simulates each scenario and writes one self-contained HTML page comparing them: "
        "headline\n"
        "figures and roofline verdict, roofline chart, time breakdown, schedule, link "
        "utilisation,\n"
        "memory over time and collectives; with --stress, what a failure costs (each "
        "scenario's\n"
        "stress campaign: histogram and costliest components). No scripts or external files: "
        "it\n"
        "reads offline and prints.",
    .options = report_options,
    .files = {.min = 1,
              .fewer = "report needs a scenario file",
              .hint = "stepsim report scenarios/deepseek-v3-dualpipe.yaml -o report.html"},
    .handler = html_report,
    .ranks = true};

}  // namespace stepsim::cli
