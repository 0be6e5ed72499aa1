// The step's communication per traffic kind, as it ran in the simulation: for tensor-parallel
// all-reduces (tp), expert dispatch and combine, pipeline sends (pp_activations) and the
// data-parallel gradient and parameter collectives (dp_grads, dp_params; ZeRO-3's per-layer
// reduce-scatters and gathers among them), each a mean over the GPUs (every device weighted by
// the GPUs it stands for):
//  - ops and bytes per GPU per step (the collectives' sizes, as nccl-tests counts them), and the
//    bytes each GPU sent over NVLink and InfiniBand;
//  - seconds in flight per GPU (Σ end - start of its ops, on whatever stream: they may overlap
//    compute and one another) and, beside it, the same ops' times measured with only their own
//    sibling groups on the network (StepOp::duration): the ratio is what the rest of the step's
//    traffic on the live fabric cost them;
//  - achieved bandwidth: nccl-tests' busbw, Σ bytes x bus factor / Σ seconds in flight; for the
//    expert dispatch and combine, as DeepEP's benchmarks report theirs, the bytes sent over RDMA
//    (InfiniBand; NVLink within one node) / Σ seconds in flight;
//  - the algorithm and group, from the roofline's row of that kind (its slowest rank's).
#pragma once

#include <string>
#include <vector>

#include "sim/analysis/roofline.hpp"
#include "sim/exec/step_executor.hpp"

namespace stepsim::analysis {

struct TrafficStats {
  std::string kind;        // "tp", "ep_dispatch", ... (work_fold.hpp's rows)
  std::string collective;  // e.g. "all-reduce (hierarchical) over dp=128 on 16 node(s)"
  double ops = 0.0;        // per GPU per step
  double bytes = 0.0;
  net::LinkBytes link;
  double seconds = 0.0;        // in flight
  double alone_seconds = 0.0;  // timed with their siblings only
  double busbw = 0.0;          // bytes/s
  std::string basis = "bus";   // what busbw counts: "bus", "RDMA" or "NVLink" bytes
};

// In the report's order (sort_rows); kinds the step does not run are left out.
std::vector<TrafficStats> traffic_stats(const exec::StepGraph& g, const exec::StepTimeline& t,
                                        const Roofline& roofline);

}  // namespace stepsim::analysis
