// What-if: where a step's time goes beyond its roofline bound, mechanism by mechanism.
//
// The step is simulated with every mechanism below switched on (the scenario as it is), with all
// of them off, and with the subsets the attribution scheme needs (analysis/attribution.hpp:
// Shapley values, exact over 2^m subsets or by the pairwise scheme over 2m + 2); each mechanism's
// term is its Shapley value. A mechanism is switched off where it is modelled: in the scenario's
// inputs for those the inputs hold, on the step graph for those the executor adds
// (exec/idealise.hpp); nothing else of the step changes. The waterfall reads
//     bound                      of the step with every mechanism off (the scenario's own, unless
//                                skewed routing or a fault changes the program it folds)
//   + limit beyond compute       when HBM, NVLink or InfiniBand sets the bound: its compute term
//                                minus the bound (negative; that traffic is simulated below)
//   + kernels beyond arithmetic  the bound's slowest pipeline rank's compute with every mechanism
//                                off, minus the bound's compute term: kernels that wait on HBM
//                                (norms, casts, the memory side of small GEMMs), which the bound
//                                counts as a resource of its own
//   + pipeline schedule          that rank's bubble and other idle with every mechanism off: the
//                                schedule's warm-up and cool-down and its stages' imbalance
//   + one term per mechanism     (Shapley)
//   + interactions of three or more mechanisms (the pairwise scheme's residual; 0 when exact)
//   = the simulated step.
// The first three sum to T(all off) − bound by construction (every device's time is compute +
// synchronisation + exposed + bubble + other, analysis/step_metrics.hpp), the mechanisms' terms
// and the residual to T(all on) − T(all off). A mechanism whose switch changes nothing in the
// scenario (no faults, no variability, balanced routing, a free network) is inactive: its term is
// 0 and it is left out of the subsets (a Shapley value of a mechanism that changes nothing is 0).
// Not modelled as mechanisms: the kernels' efficiency by shape (inside the bound, which times the
// arithmetic from the calibration tables), and losses stepsim does not simulate at all.
#pragma once

#include <optional>
#include <vector>

#include "sim/analysis/attribution.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/spec/names.hpp"

namespace stepsim::run {

enum class Mechanism {
  kernel_overheads,  // the host's launch overhead and framework time per kernel, the gap after it
  communication,     // collectives and pipeline sends taking time (exposed where not hidden)
  link_sharing,      // collectives in flight sharing the fabric's links (the live fabric)
  hbm_sharing,       // compute and communication sharing a GPU's HBM bandwidth
  sm_sharing,        // communication kernels holding SMs the compute beside them would use
  comm_contention,   // communication kernels slowed by the compute beside them (L2, issue slots)
  variability,       // GPU speed spread and kernel jitter: waits for the slowest peer
  expert_skew,       // uneven expert routing: the busiest GPU of an expert group sets the pace
  faults,            // the scenario's faults: links or NICs down or degraded, stragglers
};
inline constexpr int kMechanismCount = 9;
inline constexpr spec::Names<Mechanism, kMechanismCount> kMechanisms{
    {{"kernel_overheads", "kernel launch and gaps"},
     {"communication", "communication not hidden"},
     {"link_sharing", "links shared by collectives"},
     {"hbm_sharing", "HBM shared with communication"},
     {"sm_sharing", "SMs held by communication"},
     {"comm_contention", "communication slowed beside compute"},
     {"variability", "waits for the slowest GPU"},
     {"expert_skew", "expert load skew"},
     {"faults", "faults"}}};

struct WhatIfOptions {
  Limits limits;  // of each simulated step
  // The scheme; none: exact when at most kExactUpTo mechanisms are active, else pairwise.
  std::optional<analysis::AttributionScheme> scheme;
  static constexpr int kExactUpTo = 5;
};

struct MechanismTerm {
  Mechanism mechanism = Mechanism::communication;
  bool active = false;
  double seconds = 0.0;  // its Shapley value (0 when inactive)
};

struct WhatIf {
  Bounded bounded;  // the scenario as it is, with its bound
  // The bound of the step with every mechanism off, where the waterfall starts: the scenario's
  // own unless skewed routing or a fault changes the program it folds (then their share of it
  // is in their terms).
  analysis::Roofline base;
  double bound_s = 0.0, scenario_bound_s = 0.0, step_s = 0.0, all_off_s = 0.0;
  double limit_s = 0.0;     // the bound's compute term minus the bound (<= 0)
  double kernels_s = 0.0;   // kernels beyond their arithmetic (see above)
  double schedule_s = 0.0;  // the pipeline schedule's bubble and idle with every mechanism off
  std::vector<MechanismTerm> terms;  // in kMechanisms order
  analysis::Attribution attribution;
  double wall_s = 0.0;
};

WhatIf whatif(const spec::ScenarioSpec& spec, const WhatIfOptions& options,
              const engine::RunControl* control = nullptr);

// The scenario with `off`'s input-held mechanisms switched off, and the graph switches for the
// others (a bitmask over Mechanism values).
spec::ScenarioSpec with_mechanisms_off(const spec::ScenarioSpec& spec, std::uint32_t off);
exec::Idealisation idealisation(std::uint32_t off);

}  // namespace stepsim::run
