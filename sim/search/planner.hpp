// The layout search behind `stepsim plan`: which parallel layout to build for a model on a
// cluster.
//
//  1. enumerate the layouts (search_space.hpp);
//  2. bound each analytically (analysis/layout_bound.hpp): invalid layouts keep make_plan's
//     reason, layouts whose memory per GPU (workload/memory.hpp) exceeds the device's do not fit,
//     the rest get their roofline bound and its binding resource;
//  3. simulate with the discrete-event engine the K best by bound with the ideal schedule's
//     bubble (Evaluation::pipelined_s: a pipeline of few micro-batches cannot reach its roofline
//     bound), and the best such layout of every other family within 2x of the best (a family's
//     loss to exposed communication, and the bubble beyond the ideal, are for the simulation to
//     show);
//  4. rank the simulated layouts by simulated tokens per second per GPU (layouts whose simulated
//     peak memory exceeds the device's last): the first K are the winners;
//  5. with a base scenario of the user's, simulate its own layout too and say where it ranks;
//  6. say for every family without a winner why: all members invalid (the first reason, and
//     where the batch alone was at fault, what would bind it at the next batch that divides), none
//     fits (the smallest's memory and its largest term), bound by a resource (which, and by how
//     much against compute and against the best bound), or simulated slower (its step against
//     the best, and its largest loss: bubble or exposed communication).
// Ties in every ranking break by enumeration order, so the result is the same on any number of
// threads or MPI ranks (workers.hpp).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/analysis/step_metrics.hpp"
#include "sim/run/workers.hpp"
#include "sim/search/search_space.hpp"

namespace stepsim::search {

struct Evaluation {
  // same_split: an accounted split that cuts the stages as the balanced one does (the same
  // layout, counted once).
  enum class Status { invalid = 0, no_fit = 1, bounded = 2, same_split = 3 };
  Status status = Status::invalid;
  std::string reason;  // invalid: why
  std::string split;   // a valid layout's layers per stage ("4,4,..."), to tell splits apart
  double bound_s = 0.0;
  // The bound with the ideal schedule's bubble (workload::ScheduleDef::bubble): compute time x
  // (1 + bubble / micro-batches) where that exceeds the bound; what the search ranks by.
  double pipelined_s = 0.0;
  long long micro_batches = 0;    // per pipeline and step, that bubble's m
  std::array<double, 4> times{};  // compute, HBM, NVLink, IB seconds of the slowest rank
  int limited_by = 0;             // analysis::Resource
  double memory = 0.0, capacity = 0.0;
  std::array<double, 5> memory_terms{};  // params, grads, optimizer, activations, buffers
  // An invalid layout whose only fault is a global batch that does not divide over dp x
  // micro_batch: the next batch that does, and the bound and memory above at that batch.
  long long rounded_batch = 0;
};
std::string serialize(const Evaluation& e);
Evaluation parse_evaluation(const std::string& s);

struct Simulated {
  std::string error;  // the simulation refused the layout (e.g. too many operations)
  double step_s = 0.0;
  analysis::Breakdown mean;  // over GPUs
  double peak_memory = 0.0;
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  double capacity = 0.0;  // the device's memory
  double bound_s = 0.0;   // the roofline bound
  int limited_by = 0;     // analysis::Resource
  bool fits() const;
};
std::string serialize(const Simulated& s);
Simulated parse_simulated(const std::string& s);

// Simulates one scenario with the discrete-event engine; a layout the simulation refuses (more
// than `max_memory_bytes` of estimated memory, when that is > 0, or too many operations) keeps
// the reason in `error`.
Simulated simulate(const spec::ScenarioSpec& spec, const engine::RunControl* control,
                   double max_memory_bytes);

struct Candidate {
  std::size_t layout = 0;
  Simulated sim;
};

struct FamilyVerdict {
  std::string family;
  std::size_t layouts = 0, invalid = 0, no_fit = 0, bounded = 0, same_split = 0;
  bool has_winner = false;
  std::size_t best = 0;  // its best member (by bound, or simulated step when simulated)
  std::string why;       // for a family without a winner
  // The verdict in one word: winner, invalid, does_not_fit, simulated_slower, not_simulated,
  // communication_bound (its bound is set by a network) or bound_too_high (by compute or HBM).
  std::string verdict;
};

struct PlanOptions {
  int top = 10;
  bool own = false;  // also simulate and rank the base scenario's own layout (plan SCENARIO)
  double max_memory_bytes = 0.0;  // per simulation (0: no limit)
};

// The base scenario's own layout, simulated as it stands (as `stepsim run` would), and where it
// ranks: among the simulated layouts by the same order as the winners, and among the bounded
// layouts by the bound with the ideal bubble.
struct OwnLayout {
  std::string layout;                // describe(scenario)
  std::optional<std::size_t> index;  // in the search's layouts, where it enumerates it
  Evaluation evaluation;
  Simulated sim;
  std::size_t rank = 0, simulated = 0;      // its place (1 = first) among that many, it included
  std::size_t bound_rank = 0, bounded = 0;  // 0: it is not bounded (does not fit)
};

struct PlanResult {
  spec::ScenarioSpec base;  // the scenario searched from
  SearchSpace space;
  std::vector<Evaluation> evaluations;  // per layout
  std::vector<Candidate> simulated;     // ranked; the first `top` are the winners
  std::size_t winners = 0;
  std::vector<FamilyVerdict> families;  // in order of first appearance
  std::optional<OwnLayout> own;         // with PlanOptions::own
  double tokens_per_step = 0.0;
  int world = 0;
  double analytic_wall_s = 0.0, simulation_wall_s = 0.0;  // shown only with --timing
};

PlanResult run_plan(const spec::ScenarioSpec& base, SearchSpace space, const PlanOptions& options,
                    run::Workers& workers);

}  // namespace stepsim::search
