// A stress campaign run from the command line (stepsim stress, and stepsim report --stress): the
// draws parsed and checked against the scenario's cluster, the baseline and every trial
// simulated over the workers' threads and MPI ranks, in item order (item 0 the baseline).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/plan/workers.hpp"
#include "sim/stress/campaign.hpp"

namespace stepsim::cli {

struct CampaignRequest {
  std::vector<stress::FaultDraw> draws;
  int trials = 100;
  std::uint64_t seed = 1;
  double max_memory = 0.0;  // bytes a trial may need (run::Estimates)
};

// Parses "KIND[:COUNT][@LOW[-HIGH]]" values, the --trials and --seed texts (throws
// engine::UserError naming `option` for a bad value).
CampaignRequest parse_campaign(const std::vector<std::string>& faults, const std::string& trials,
                               const std::string& seed, const std::string& option);

// The campaign on rank 0; std::nullopt on the other ranks. Throws engine::UserError when a draw
// does not fit the cluster or the baseline step does not simulate.
std::optional<stress::Campaign> run_campaign(const std::string& file,
                                             const spec::ScenarioSpec& scenario,
                                             const CampaignRequest& request, plan::Workers& workers,
                                             const engine::RunControl* control);

}  // namespace stepsim::cli
