// stepsim stress SCENARIO --fault KIND[:COUNT][@LOW[-HIGH]] ...: a stress campaign
// (search/campaign.hpp): the scenario's step under random faults, trial by trial, against the
// step without them; over threads (-j) and MPI ranks as plan and sweep spread their work.
#include "sim/cli/command.hpp"
#include "sim/config/load.hpp"
#include "sim/config/scenario_writer.hpp"
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
      "also write the campaign as an HTML page: histogram, worst components, lost trials")(
      "trial", po::value<std::string>()->value_name("N"),
      "re-run trial N alone (numbered from 0 as the campaign prints them): its faults and step")(
      "write-trial", po::value<std::vector<std::string>>()->multitoken()->value_name("N FILE"),
      "re-run trial N alone and write its faults into a scenario FILE that stepsim run "
      "reproduces");
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

// The trial --trial or --write-trial names (numbered from 0), below the campaign's trials where
// --trials is given; -1 for a whole campaign.
int trial_asked(const Invocation& in, const search::CampaignRequest& request) {
  const bool write = in.vm.count("write-trial") > 0;
  if (!in.vm.count("trial") && !write) return -1;
  if (in.vm.count("html"))
    throw engine::UserError({"--html", 0, 0}, "one trial has no campaign page",
                            "drop --html, or --trial to run the whole campaign");
  const long long most = (in.vm.count("trials") ? request.trials : kMaxTrials) - 1;
  long long n = -1;
  if (write) {
    const auto w = in.texts("write-trial");
    if (w.size() != 2)
      throw engine::UserError(
          {"--write-trial", 0, 0},
          "--write-trial takes a trial and a file, got " + std::to_string(w.size()) + " value(s)",
          "--write-trial 7 trial7.yaml (the scenario file after the options)");
    n = integer_option("write-trial", w[0], 0, most);
  }
  if (in.vm.count("trial")) {
    const long long t = in.integer("trial", 0, most);
    if (write && t != n)
      throw engine::UserError({"--trial", 0, 0},
                              "--trial " + std::to_string(t) + " and --write-trial " +
                                  std::to_string(n) + " name two trials",
                              "give one trial");
    n = t;
  }
  return static_cast<int>(n);
}

// Trial N as a scenario: the stressed scenario with the trial's faults added to its own.
std::string trial_scenario(const Invocation& in, const spec::ScenarioSpec& scenario,
                           const search::TrialRun& t, const std::string& file) {
  std::vector<std::string> sets;
  for (const config::Override& o : in.overrides) sets.push_back(o.text);
  std::string faults;
  const auto& all = scenario.cluster.faults;
  for (std::size_t i = all.size() - scenario.where.scenario_faults; i < all.size(); ++i)
    faults += (faults.empty() ? "" : ", ") + spec::fault_yaml(all[i]);
  for (const spec::FaultSpec& f : t.faults)
    faults += (faults.empty() ? "" : ", ") + spec::fault_yaml(f);
  sets.push_back("faults=[" + faults + "]");
  std::string draws;
  for (const std::string& d : in.texts("fault")) draws += " --fault " + d;
  const std::string from = engine::escape_control_bytes(in.files[0]);
  config::ScenarioBase base;
  base.scenario = in.files[0];
  return config::derived_scenario(
      base, sets, scenario.name + ", stress trial " + std::to_string(t.trial), file,
      "Trial " + std::to_string(t.trial) + " of stepsim stress " + from +
          engine::escape_control_bytes(draws) + " --seed " + std::to_string(t.seed) + ":\n" +
          engine::escape_control_bytes(report::faults_text(t.faults)) + ". Run it: stepsim run " +
          engine::escape_control_bytes(file));
}

int stress(Invocation& in) {
  search::CampaignRequest request =
      parse_campaign(in.texts("fault"), in.vm.count("trials") ? in.text("trials") : "100",
                     in.vm.count("seed") ? in.text("seed") : "1", "--fault");
  const int trial = trial_asked(in, request);
  if (in.vm.count("html")) in.outputs.add("--html", in.text("html"));
  if (in.vm.count("write-trial")) in.outputs.add("--write-trial", in.texts("write-trial")[1]);
  const spec::ScenarioSpec scenario = config::load_scenario(in.files[0], in.overrides);
  in.outputs.check_inputs(scenario.where.files);
  request.max_memory = max_memory_bytes(in.text("max-memory"));
  request.lists_every_trial = in.format != OutputFormat::text;
  if (trial >= 0) {
    const std::optional<search::TrialRun> t =
        search::run_one_trial(in.files[0], scenario, request, trial, *in.workers, &in.control);
    if (!t) return 0;
    if (in.vm.count("write-trial")) {
      const std::string file = in.texts("write-trial")[1];
      in.outputs.stage(file, trial_scenario(in, scenario, *t, file));
    }
    in.outputs.finish_report(in.output, in.format == OutputFormat::json  ? report::trial_json(*t)
                                        : in.format == OutputFormat::csv ? report::trial_csv(*t)
                                                                         : report::trial_text(*t));
    return 0;
  }
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
