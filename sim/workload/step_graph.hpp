// One training step as a graph of operations on the pipeline's devices.
//
// Each op runs on one stream of one device: `compute` (kernels), `comm` (collectives in the
// layers' path: expert dispatch/combine, tensor-parallel all-reduce, ZeRO-3 parameter gathers),
// `p2p` (pipeline sends) or `dp` (gradient reductions and parameter gathers of data parallelism,
// which frameworks run on a stream of their own so they overlap the remaining backward). A stream
// runs its ops one at a time in issue order; an op starts when its stream is free and all its
// dependencies have finished. Durations are fixed when the graph is built (kernels from the device
// roofline, collectives from the network model, each timed alone); communication ops that run at
// once on different streams of a device then share its NVLink and NIC bandwidth (see
// step_executor.hpp). Device d stands for pipeline rank d: all its data-parallel replicas behave
// alike, so one is simulated and its collectives are timed on the real groups of the cluster.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"

namespace stepsim::workload {

enum class StreamKind : std::uint8_t { compute = 0, comm = 1, p2p = 2, dp = 3 };
inline constexpr int kStreams = 4;

enum class StepOpKind : std::uint8_t {
  kernel,
  ep_dispatch,
  ep_combine,
  tp_reduce,
  pp_send,
  dp_grads,
  dp_params,
  zero_gather,
  zero_scatter,
  optimizer
};
std::string_view to_string(StepOpKind k);
inline bool is_communication(StepOpKind k) {
  return k != StepOpKind::kernel && k != StepOpKind::optimizer;
}

struct StepOp {
  int device = 0;
  StreamKind stream = StreamKind::compute;
  StepOpKind kind = StepOpKind::kernel;
  engine::Time duration;
  std::vector<int> deps;
  char phase =
      'F';  // F forward, B backward (input gradient), W weight gradient, X both, O step end
  int mb = -1, stage = -1, layer = -1;  // layer -1: embedding, -2: head, -3: none
  std::string part;                     // "attn", "experts", "dispatch", "send", ...
  double flops = 0.0;                   // kernels
  double bytes = 0.0;                   // communication: bytes per GPU
  double ib_bytes = 0.0;                // of which sent over InfiniBand, per GPU (network model)
  double nvlink_bytes = 0.0;
  int peer = -1;  // pp_send: the receiving device
};

struct StepGraph {
  int devices = 0;
  // Per GPU and direction, bytes/s, shared by a device's concurrent communication ops; 0: they
  // do not interact (analytic or free network).
  double nvlink_capacity = 0.0, nic_capacity = 0.0;
  std::vector<StepOp> ops;
  std::vector<std::array<std::vector<int>, kStreams>> streams;  // per device: op ids in issue order

  int add(StepOp op);              // appends to its device's stream; returns its id
  std::string name(int op) const;  // e.g. "F mb12 L4 attn"
};

}  // namespace stepsim::workload
