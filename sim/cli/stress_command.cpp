// stepsim stress SCENARIO --fault KIND[:COUNT][@LOW[-HIGH]] ...: a stress campaign
// (stress/campaign.hpp): the scenario's step under random faults, trial by trial, against the
// step without them; over threads (-j) and MPI ranks as plan and sweep spread their work.
#include <boost/program_options.hpp>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/campaign_report.hpp"
#include "sim/report/stress_page.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/run/workers.hpp"
#include "sim/search/campaign.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int stress_command(const Args& args) {
  po::options_description opts(
      "stepsim stress SCENARIO --fault KIND[:COUNT][@LOW[-HIGH]] [--fault ...] [options]\n\n"
      "Simulates the scenario's step under random faults, --trials times: each trial draws\n"
      "COUNT distinct components of every --fault KIND uniformly over the cluster and adds\n"
      "them to the scenario's faults. Reports the distribution of the step-time change against\n"
      "the step without them (min, median, p90, p99, max), the components whose failure costs\n"
      "most, and the trials the job does not survive (two GPUs that talk left with no route).\n"
      "KIND: nic_down, nic_degrade, link_down, link_degrade, switch_down, node_down,\n"
      "nvlink_degrade, straggler. @LOW-HIGH: a degrade kind's bandwidth factor (default 0.5)\n"
      "or a straggler's slowdown (default 1.1-2), uniform in the range. The same seed gives\n"
      "the same bytes with any -j and under mpirun.\n\nOptions");
  std::vector<std::string> files, sets, faults;
  std::string output, html, max_wall, max_memory = kDefaultMaxMemory, jobs = "1", trials = "100",
                                      seed = "1";
  add_common_options(opts, sets);
  opts.add_options()("fault", po::value(&faults)->value_name("KIND[:COUNT][@LOW[-HIGH]]"),
                     "faults to draw in every trial; repeatable (required)")(
      "trials", po::value(&trials)->value_name("N"), "trials (default 100, at most 100000)")(
      "seed", po::value(&seed)->value_name("S"), "the draws' seed (default 1)")(
      "html", po::value(&html)->value_name("FILE"),
      "also write the campaign as an HTML page: histogram, worst components, lost trials");
  add_search_options(opts, jobs, output);
  add_max_wall_option(opts, max_wall);
  add_max_memory_option(opts, max_memory);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  run::Workers workers(search_jobs(vm, jobs));
  if (files.size() != 1)
    throw engine::UserError({"<command line>", 0, 0},
                            "stress needs one scenario file, got " + std::to_string(files.size()),
                            "stepsim stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_down:1 "
                            "--trials 200 --seed 1");
  search::CampaignRequest request = parse_campaign(faults, trials, seed, "--fault");
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  if (vm.count("html")) outputs.add("--html", html);
  const engine::RunControl control = run_control(vm, max_wall);
  outputs.set_control(&control);
  workers.set_control(&control);
  const spec::ScenarioSpec scenario = config::load_scenario(files[0], parse_overrides(sets));
  outputs.check_inputs(scenario.where.files);
  request.max_memory = max_memory_bytes(max_memory);
  const std::optional<search::Campaign> campaign =
      search::run_campaign(files[0], scenario, request, workers, &control);
  if (!campaign) return 0;
  const search::Campaign& c = *campaign;
  const search::Summary summary = search::summarize(c);
  if (!html.empty()) outputs.stage(html, report::stress_page(c, summary));
  const std::string out = vm.count("json")  ? report::campaign_json(c, summary)
                          : vm.count("csv") ? report::campaign_csv(c)
                                            : report::campaign_text(c, summary);
  outputs.finish_report(output, out);
  return 0;
}

}  // namespace stepsim::cli
