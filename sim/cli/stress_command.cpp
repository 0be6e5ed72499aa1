// stepsim stress SCENARIO --fault KIND[:COUNT][@LOW[-HIGH]] ...: a stress campaign
// (search/campaign.hpp): the scenario's step under random faults, trial by trial, against the
// step without them; over threads (-j) and MPI ranks as plan and sweep spread their work.
#include "sim/cli/command.hpp"
#include "sim/config/load.hpp"
#include "sim/report/campaign_report.hpp"
#include "sim/report/stress_page.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

void stress_options(po::options_description& opts) {
  opts.add_options()("fault",
                     po::value<std::vector<std::string>>()->value_name("KIND[:COUNT][@LOW[-HIGH]]"),
                     "faults to draw in every trial; repeatable (required)")(
      "trials", po::value<std::string>()->value_name("N"), "trials (default 100, at most 100000)")(
      "seed", po::value<std::string>()->value_name("S"), "the draws' seed (default 1)")(
      "html", po::value<std::string>()->value_name("FILE"),
      "also write the campaign as an HTML page: histogram, worst components, lost trials");
  add_search_options(opts);
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

// The fault kinds, from their table (spec/faults.hpp), and what a draw's range means; lines of
// at most 90 characters.
std::string kinds_help() {
  const std::string text =
      "KIND: " + spec::fault_kinds_help() +
      ". @LOW-HIGH: a degrade kind's bandwidth factor (default 0.5) or a straggler's slowdown "
      "(default 1.1-2), uniform in the range. The same seed gives the same bytes with any -j and "
      "under mpirun.";
  std::string out, line;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t to = text.find(' ', from);
    if (to == std::string::npos) to = text.size();
    const std::string word = text.substr(from, to - from);
    if (!line.empty() && line.size() + 1 + word.size() > 90) {
      out += "\n" + line;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    from = to + 1;
  }
  return out + "\n" + line;
}

int stress(Invocation& in) {
  search::CampaignRequest request =
      parse_campaign(in.texts("fault"), in.vm.count("trials") ? in.text("trials") : "100",
                     in.vm.count("seed") ? in.text("seed") : "1", "--fault");
  if (in.vm.count("html")) in.outputs.add("--html", in.text("html"));
  const spec::ScenarioSpec scenario = config::load_scenario(in.files[0], in.overrides);
  in.outputs.check_inputs(scenario.where.files);
  request.max_memory = max_memory_bytes(in.text("max-memory"));
  const std::optional<search::Campaign> campaign =
      search::run_campaign(in.files[0], scenario, request, *in.workers, &in.control);
  if (!campaign) return 0;
  const search::Summary summary = search::summarize(*campaign);
  if (in.vm.count("html"))
    in.outputs.stage(in.text("html"), report::stress_page(*campaign, summary));
  in.outputs.finish_report(
      in.output, in.format == OutputFormat::json  ? report::campaign_json(*campaign, summary)
                 : in.format == OutputFormat::csv ? report::campaign_csv(*campaign)
                                                  : report::campaign_text(*campaign, summary));
  return 0;
}

}  // namespace

extern const Command kStress{
    .name = "stress",
    .synopsis = "stress SCENARIO",
    .summary =
        "random faults, trial by trial: the step-time change's distribution and the "
        "costliest components (--fault, --trials)",
    .help =
        "stepsim stress SCENARIO --fault KIND[:COUNT][@LOW[-HIGH]] [--fault ...] [options]\n\n"
        "Simulates the scenario's step under random faults, --trials times: each trial draws\n"
        "COUNT distinct components of every --fault KIND uniformly over the cluster and adds\n"
        "them to the scenario's faults. Reports the distribution of the step-time change "
        "against\n"
        "the step without them (min, median, p90, p99, max), the components whose failure "
        "costs\n"
        "most, and the trials the job does not survive (two GPUs that talk left with no "
        "route).",
    .more_help = kinds_help,
    .options = stress_options,
    .files = {.min = 1,
              .max = 1,
              .fewer = "stress needs one scenario file",
              .hint = "stepsim stress scenarios/deepseek-v3-dualpipe.yaml --fault nic_down:1 "
                      "--trials 200 --seed 1",
              .counted = true},
    .handler = stress,
    .ranks = true};

}  // namespace stepsim::cli
