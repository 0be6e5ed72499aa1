// Metrics of a simulated step: the definitions below are the project's, used by every report.
//
// For each device over [0, T]: compute = time its compute stream runs. Every idle gap of the
// compute stream ends when the next compute op starts (or at T). The gap is blamed on the
// dependency of that op that finished last:
//   - a communication op (collective or pipeline send): the part of the gap while it was in
//     flight is exposed communication; the part before it started is blamed, in the same way, on
//     whatever held it back last: its own dependency, or the transfer ahead of it on its stream;
//   - compute on another device (a pipeline input without transfer time): bubble;
//   - nothing: other idle (it waited for its own stream only, or the tail after the last op).
// Synchronisation: a device runs its compute at the pace of the slowest GPU it stands for (a
// straggler, hw/variability.hpp), since its GPUs exchange every layer; the faster ones compute
// only their own share of that time and wait for the slowest at the exchanges. That wait, the
// compute time times (1 - the device's pace_share, exec/step_graph.hpp), is taken out of compute
// as synchronisation, and so is the part of its routed experts' kernels that the mean GPU of an
// expert-parallel group does not run under uneven routing (StepOp::waiting_s: those kernels are
// sized for the busiest GPU, the mean one computes 1/f of them). So is a gap blamed, as above, on a
// wait before a collective for its slowest member under kernel jitter (a StepOpKind::barrier op).
// So compute + synchronisation + exposed + bubble + other = T on every device. Overlapped
// communication is the time some communication runs while the compute stream is busy; of
// compute, compute_slowed is what its ops ran beyond their own time, slowed beside communication
// (the SMs its kernels hold, the HBM both use: exec/step_executor.hpp), scaled as compute is; and
// comm_slowed is what the device's communication ops on the live fabric ran beyond their own
// time, summed over ops (which may overlap one another): links shared with other traffic, HBM,
// and the compute beside them (spec::CommBesideCompute). Each
// device stands for the dp·tp GPUs of its pipeline rank, so means over devices are means over GPUs.
#pragma once

#include <vector>

#include "sim/exec/step_executor.hpp"

namespace stepsim::analysis {

struct Breakdown {
  double compute = 0.0, exposed_comm = 0.0, bubble = 0.0, other_idle = 0.0, overlapped_comm = 0.0,
         synchronisation = 0.0, compute_slowed = 0.0, comm_slowed = 0.0;  // seconds
  Breakdown& operator+=(const Breakdown& o);
  Breakdown operator/(double k) const;
  Breakdown operator*(double k) const;
};

struct StepMetrics {
  double step_s = 0.0;
  std::vector<Breakdown> per_device;
  std::vector<Breakdown> per_rank;  // per pipeline rank: its devices' mean over their GPUs
  Breakdown mean;
  int worst_device = 0;  // the most compute-starved: least compute share of T
};

StepMetrics step_metrics(const exec::StepGraph& g, const exec::StepTimeline& t);

// Throughput of a step of `step_s` seconds that trains `tokens` tokens on `gpus` GPUs, each doing
// `model_flops_per_gpu` training FLOPs (no recompute). MFU is over the device's dense BF16 peak
// `bf16_peak_flops`, whatever the GEMM precision.
struct StepFigures {
  double tokens_per_s_per_gpu = 0.0;
  double tflops_per_gpu = 0.0;
  double mfu = 0.0;
  int worst_rank = 0;  // global rank of the GPU with the most idle time
};
StepFigures step_figures(double step_s, double tokens, int gpus, double model_flops_per_gpu,
                         double bf16_peak_flops);

// When any communication op of `device` (comm, p2p or dp stream) is in flight: the union of their
// intervals, as sorted disjoint (start, end) pairs in seconds.
std::vector<std::pair<double, double>> communication_in_flight(const exec::StepGraph& g,
                                                               const exec::StepTimeline& t,
                                                               int device);

}  // namespace stepsim::analysis
