// The roofline ("speed of light") bound of one training step, per GPU, without simulation: a fold
// over the step program (workload/step_program.hpp), so it counts exactly the work the simulation
// runs. Each chain's work is added up once and multiplied by the chunks of the rank that run it.
//
// For every pipeline rank (device) the step's work is added up per resource:
//  - compute: Σ_kernels the kernel's arithmetic at the rate the KernelModel's calibration tables
//    give its class and shape on the SMs left to it (math_seconds: sustained clock and wave
//    quantisation applied, its bytes free), where
//    sm_share = (SMs - comm_sms) / SMs is what the GEMMs keep while communication kernels hold
//    their SMs; also at the datasheet peak (no efficiency, all SMs) for comparison;
//  - HBM: the bytes every kernel of the program reads and writes (activations in and out, the
//    GPU's weights once per kernel: op_kernels.hpp) and the optimizer step's, at the bandwidth the
//    device's memory table gives a large kernel (and, beside it, at the datasheet figure);
//  - NVLink and InfiniBand: the bytes per link class of every collective of the program, from the
//    closed forms of the algorithms that run it (net/algorithm/): tensor-parallel all-reduces,
//    expert dispatch/combine, pipeline sends (over NVLink when both ranks' GPUs share a node, else
//    InfiniBand, plus an NVLink hop with PXN when the planes differ), data-parallel gradient and
//    parameter collectives (ZeRO-3: all-gather before forward and again before backward,
//    reduce-scatter after, every micro-batch, as FSDP does);
//  - InfiniBand also through the leaf switches' uplinks, which an oversubscription o divides:
//    the bytes that must leave the leaf (an all-to-all spread over k nodes, L to a leaf, sends at
//    least (k - L)/(k - 1) of its bytes beyond it) over NIC bandwidth / o. IB time is the larger
//    of the NIC and uplink times. Rings and pipeline sends are counted at the NIC only, which
//    keeps the bound a lower bound: most of their hops stay inside a leaf.
// time(resource) = work / rate; the device's bound is the largest, `limited_by` its resource, and
// the step's bound is the slowest device's. comm_to_compute = max(NVLink, IB time) / compute time.
// What the bound leaves out, by design: pipeline bubbles, latency, contention, dependencies and
// imperfect overlap; the discrete-event simulation adds them.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/analysis/work_fold.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::analysis {

// The work of one GPU of a pipeline rank over the step, as the bound counts it.
struct RankWork {
  double flops = 0.0;  // incl. recompute
  net::LinkBytes comm;
  double bound_s = 0.0;
  std::vector<TrafficRow> traffic;  // its collectives and sends, by kind and algorithm
};

struct Roofline {
  int device = 0;                              // pipeline rank of the slowest GPU (reported below)
  std::array<double, 4> flops_by_precision{};  // per GPU per step, incl. recompute
  double flops_per_gpu = 0.0;
  double flops_per_gpu_mean = 0.0;  // step FLOPs incl. recompute / world
  double sm_share = 1.0;
  double compute_s = 0.0;       // achievable, shape-aware, sm_share applied
  double compute_peak_s = 0.0;  // datasheet peak, all SMs
  double hbm_bytes = 0.0;
  double hbm_s = 0.0;          // at the measured bandwidth of a large memory-bound kernel
  double hbm_peak_s = 0.0;     // at the datasheet bandwidth
  double hbm_bandwidth = 0.0;  // the measured one, bytes/s
  std::vector<TrafficRow> traffic;
  net::LinkBytes comm_bytes;
  double nvlink_s = 0.0, ib_s = 0.0;            // achievable bandwidth
  double nvlink_peak_s = 0.0, ib_peak_s = 0.0;  // datasheet bandwidth
  double bound_s = 0.0;
  Resource limited_by = Resource::compute;
  double comm_to_compute = 0.0;
  std::vector<RankWork> per_rank;
};

// The bound of the step `program` runs on `cluster`: a fold over the program, which it never
// builds (run/pipeline.hpp builds it once).
Roofline roofline(const workload::StepProgram& program, const spec::ClusterSpec& cluster);

}  // namespace stepsim::analysis
