#include "sim/cli/campaign.hpp"

#include "sim/cli/options.hpp"
#include "sim/format/text_table.hpp"
#include "sim/run/pipeline.hpp"

namespace stepsim::cli {

CampaignRequest parse_campaign(const std::vector<std::string>& faults, const std::string& trials,
                               const std::string& seed, const std::string& option) {
  if (faults.empty())
    throw engine::UserError({"<command line>", 0, 0}, "stress needs at least one " + option,
                            "e.g. " + option + " nic_down:1 or " + option + " straggler:2@1.2-1.5");
  CampaignRequest r;
  r.trials = static_cast<int>(integer_option("trials", trials, 1, 100000));
  r.seed = static_cast<std::uint64_t>(integer_option("seed", seed, 0, (1LL << 62)));
  for (const std::string& f : faults) r.draws.push_back(stress::parse_fault_draw(f, option));
  return r;
}

std::optional<stress::Campaign> run_campaign(const std::string& file,
                                             const spec::ScenarioSpec& scenario,
                                             const CampaignRequest& request, plan::Workers& workers,
                                             const engine::RunControl* control) {
  for (const stress::FaultDraw& d : request.draws) stress::check_draw(d, scenario.cluster);
  // One simulation per thread at a time: the baseline is refused up front when it would not fit;
  // the faults of a trial may split symmetry classes, so each trial is checked on its own.
  run::Limits limits;
  limits.max_memory = request.max_memory;
  limits.memory_what = file + ": simulating this step";
  const run::Prepared baseline_step = run::prepare(scenario, limits);
  stress::Campaign c;
  c.scenario = file;
  c.name = scenario.name;
  c.draws = request.draws;
  c.seed = request.seed;
  c.faults = stress::draw_trials(request.draws, scenario.cluster, request.trials, request.seed);
  // Item 0 is the baseline, item t + 1 trial t.
  const std::vector<std::string> results = workers.map(
      static_cast<std::size_t>(request.trials) + 1,
      [&](std::size_t i, int) {
        if (i == 0)
          return stress::serialize(stress::outcome(
              [&] { return run::complete(baseline_step, control).metrics.step_s; }));
        return stress::serialize(stress::run_trial(scenario, c.faults[i - 1], limits, control));
      },
      false, "stress: simulating trials of " + file);
  if (!workers.root()) return std::nullopt;
  const stress::Outcome baseline = stress::parse_outcome(results[0]);
  if (!baseline.survived())
    throw engine::UserError({file, 0, 0},
                            "the step does not simulate without the drawn faults: " +
                                (baseline.lost.empty() ? baseline.error : baseline.lost),
                            "stepsim run " + file + " shows the error on its own");
  c.baseline_s = baseline.step_s;
  for (int t = 0; t < request.trials; ++t)
    c.outcomes.push_back(stress::parse_outcome(results[t + 1]));
  return c;
}

}  // namespace stepsim::cli
