// A stress campaign (`stepsim stress`): a scenario's step simulated under random faults, trial
// by trial, against the same step without them.
//
// Each trial adds its drawn faults (fault_draw.hpp) to the scenario's own and simulates the whole
// step (run::simulate_step: the fabric rerouted around what is down, stragglers slowing their
// symmetry class). Its outcome is the step time; or, when the faults leave two GPUs that must
// talk with no route (hw::Unreachable: a node gone, a stage cut off), the job does not survive
// the trial (training stops until the part is replaced); or another refusal (the simulation's
// limits), kept as an error.
//
// Summary over the surviving trials of the relative change c = step / baseline − 1:
//  - min, median, p90, p99 and max by the nearest rank: the q-quantile of n sorted values is the
//    ⌈q·n⌉-th (1-based);
//  - per component hit in some trial: the trials that hit it, how many of them the job did not
//    survive, the mean and largest change over the others. Ranked by trials lost, then by mean
//    change. With one fault per trial that is the cost of that component's failure; with several,
//    a trial's change is charged to every component it hit;
//  - per group of positions (GroupCost): the same, with the change's quantiles;
//  - a histogram of c in 20 equal bins from min to max.
// A fault only removes capacity, but a step may end a hair sooner under one (run/step_change.hpp):
// a change within run::kAnomalyTolerance below zero is reported as none; a trial faster beyond it
// would be a fault model that speeds something up: the summary counts them (`faster`) rather
// than hide them. Each trial's step time stays as simulated (stepsim run of its faults gives the
// same).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/run/step_change.hpp"
#include "sim/run/workers.hpp"
#include "sim/search/fault_draw.hpp"
#include "sim/spec/scenario.hpp"

namespace stepsim::search {

struct Outcome {
  double step_s = 0.0;
  std::string lost;   // why the job cannot run under these faults
  std::string error;  // another refusal
  bool survived() const { return lost.empty() && error.empty(); }
};
// Exact round trip (the step time in hexadecimal floating point), for the workers' exchange.
std::string serialize(const Outcome& o);
Outcome parse_outcome(const std::string& s);

// The scenario's step with `faults` added to its own, within `limits` (a step over them is an
// error outcome). Propagates engine::Stopped (a signal, the wall budget).
Outcome run_trial(const spec::ScenarioSpec& scenario, const std::vector<spec::FaultSpec>& faults,
                  const run::Limits& limits, const engine::RunControl* control);
// The outcome of a step: its time, or why it cannot run (the refusals above).
Outcome outcome(const std::function<double()>& step);

// What a campaign, or one trial of it, was asked to draw, and of which scenario.
struct Drawn {
  std::string scenario;  // the file, as given
  std::string name;      // the scenario's name
  std::vector<FaultDraw> draws;
  std::uint64_t seed = 0;
};

struct Campaign : Drawn {
  double baseline_s = 0.0;  // the step with the scenario's own faults only
  // Trial t's faults, drawn when asked (fault_draw.hpp: a trial's draw stands alone, so no
  // trial's faults are kept); a campaign made by hand gives its own.
  std::function<std::vector<spec::FaultSpec>(std::size_t)> faults;
  std::vector<Outcome> outcomes;  // per trial
  // The layout's rank -> GPU map (workload::ParallelPlan), for the pipeline rank a fault hits.
  int gpus_per_node = 1, gpus_per_rank = 1;
};

// What a campaign is asked for (stepsim stress, and stepsim report --stress).
struct CampaignRequest {
  std::vector<FaultDraw> draws;
  int trials = 100;
  std::uint64_t seed = 1;
  double max_memory = 0.0;  // bytes one step may need (run::Limits), and the campaign's outcomes
  // The outputs asked for list every trial's faults (--json, --csv), held as text until written:
  // counted in the campaign's memory estimate.
  bool lists_every_trial = false;
};

// The campaign of `scenario` (from `file`), the baseline and every trial simulated over the
// workers' threads and MPI ranks in item order (item 0 the baseline): on rank 0; std::nullopt on
// the other ranks. Throws engine::UserError when a draw does not fit the cluster or the baseline
// step does not simulate (or would not fit --max-memory).
std::optional<Campaign> run_campaign(const std::string& file, const spec::ScenarioSpec& scenario,
                                     const CampaignRequest& request, run::Workers& workers,
                                     const engine::RunControl* control);

// One trial of a campaign alone (`stepsim stress --trial N`): the baseline and trial `trial`'s
// faults, drawn as the whole campaign draws them, so that its step is the campaign's trial N's.
struct TrialRun : Drawn {
  int trial = 0;  // 0 the first
  double baseline_s = 0.0;
  std::vector<spec::FaultSpec> faults;
  Outcome outcome;
};
// On rank 0; std::nullopt on the other ranks. Throws as run_campaign does.
std::optional<TrialRun> run_one_trial(const std::string& file, const spec::ScenarioSpec& scenario,
                                      const CampaignRequest& request, int trial,
                                      run::Workers& workers, const engine::RunControl* control);

struct Quantiles {
  double min = 0.0, median = 0.0, p90 = 0.0, p99 = 0.0, max = 0.0;
};

struct ComponentCost {
  std::string component;
  int trials = 0, lost = 0;
  double mean_change = 0.0, max_change = 0.0;  // over the trials survived
};

// The trials grouped by where their faults hit, one dimension at a time: a group holds every trial
// with a fault there (a trial of several faults counts in each group it hits, once per group).
//   class          NIC, link, leaf switch, spine switch, node, NVLink, GPU
//   NIC index      a NIC fault's NIC within its node (its rail or plane on rail-aligned fabrics)
//   plane          a link's or switch's plane
//   leaf, spine    a link's or switch's leaf or spine, within its plane
//   node           a NIC's, node's, NVLink's or GPU's node
//   pipeline rank  the pipeline ranks that node or GPU holds (a node of several ranks: each)
struct GroupCost {
  std::string dimension;
  int index = -1;     // the position within the dimension; -1 for class
  std::string value;  // its words: "NIC", "3"
  int trials = 0, lost = 0;
  double mean_change = 0.0;  // over the trials survived, as Quantiles
  Quantiles change;
};
inline constexpr const char* kGroupDimensions[] = {"class", "NIC index", "plane",        "leaf",
                                                   "spine", "node",      "pipeline rank"};

inline constexpr int kHistogramBins = 20;

struct Summary {
  int trials = 0, survived = 0, lost = 0, failed = 0;
  int faster = 0;    // survived with c < −kAnomalyTolerance: a defect of a fault model
  Quantiles change;  // of c over the survived trials (zeros when none)
  std::vector<ComponentCost> components;  // every component hit, costliest first
  std::vector<GroupCost> groups;          // by kGroupDimensions' order, then by position
  std::vector<int> histogram;             // kHistogramBins counts from change.min to change.max
};
Summary summarize(const Campaign& c);

// The nearest-rank q-quantile of `sorted` (ascending, not empty).
double nearest_rank(const std::vector<double>& sorted, double q);

}  // namespace stepsim::search
