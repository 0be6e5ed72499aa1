// One training step as a graph of timed operations on the simulated devices: the step program
// (workload/step_program.hpp) instantiated by instantiate.hpp.
//
// Each op runs on one stream of one device (compute, comm, p2p, dp: step_program.hpp). A stream
// runs its ops one at a time in issue order; an op starts when its stream is free and all its
// dependencies have finished. Durations are fixed when the graph is built (kernels from the
// device's KernelModel, collectives from their TransferDags, each timed with its sibling groups);
// every communication op also carries its load on the fabric's links (a profile: bytes per link),
// so ops that run at once anywhere in the step share the links they cross (see step_executor.hpp).
// A device is one symmetry class of one pipeline rank (symmetry.hpp): the GPUs of the rank that
// behave alike, simulated once; without faults, one class per rank, and device d is pipeline
// rank d. The copies of a data-parallel collective on a rank's classes are coupled: they start
// together when all are ready and end together.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/net/collective_profile.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::exec {

using workload::kTailChain;

// What an op asks of the resources its GPU shares with the ops beside it (step_executor.hpp).
struct Demand {
  // HBM bytes its GPU reads and writes: a compute op's kernels' (hw::Kernel::hbm_bytes); a
  // communication op's, what it sends read and what it receives written (2 x its bus bytes; a
  // pipeline send: its bytes, read).
  double hbm_bytes = 0.0;
  // A compute op: of its duration, the seconds that SMs taken by communication kernels stretch,
  // of kernels with a CTA per tile (as 1/SMs, fitted to the kernel model's own time, wave
  // quantisation included, on the SMs the program's largest communication kernel leaves) and
  // with a persistent grid (hw::KernelModel::RunTimes).
  double sm_scaled_s = 0.0, sm_persistent_s = 0.0;
  // A compute op: how long a communication kernel launched at a random moment of it waits for
  // its running persistent kernel to end, Σ t_p² / (2·T) over its persistent kernels.
  double persistent_wait_s = 0.0;
  // A communication op (and the wait before it): the SMs its kernels hold on its GPU while it
  // runs, and on its peer's for a pipeline send (workload::held_sms, send_sms).
  int sms = 0;
};

// An op of the step: what it is, what it depends on, how long it takes alone and what it asks
// of the shared resources; the executor reads nothing else.
struct StepOp {
  int device = 0;
  workload::StreamKind stream = workload::StreamKind::compute;
  workload::StepOpKind kind = workload::StepOpKind::kernel;
  engine::Time duration;
  std::vector<int> deps;
  workload::Phase phase = workload::Phase::forward;
  int mb = -1, stage = -1;
  int layer = workload::kEmbedding;  // a layer index, or workload::kHead, kNoLayer, kMtpHead
  std::string part;                  // "attn", "experts", "dispatch", "send", ...
  Demand demand;
  // The program work it times (workload/step_program.hpp): program.chains[chain][work], or for
  // chain kTailChain program.tail[its rank][work].work; -1: none (a send, a wait).
  int chain = -1, work = -1;
  int peer = -1;    // pp_send: the receiving device
  int load = -1;    // communication: its shape in StepGraph::shapes; -1: it shares no link
  int couple = -1;  // a collective coupling classes: its index in StepGraph::couples
};

// What an op did, for metrics and reports (the executor does not read them): its arithmetic and
// the bytes it moved.
struct OpFacts {
  double flops = 0.0;     // kernels
  double bytes = 0.0;     // communication: bytes per GPU
  double ib_bytes = 0.0;  // of which sent over InfiniBand, per GPU (network model)
  double nvlink_bytes = 0.0;
  // Communication: Σ over its collectives of bytes x nccl-tests' bus factor for the operation and
  // group size (2(n-1)/n for an all-reduce, (n-1)/n for gathers, scatters and all-to-alls, 1 for a
  // send), so its achieved bus bandwidth is bus_bytes over the time it ran.
  double bus_bytes = 0.0;
  // A compute op: the seconds of it that the mean GPU of its device spends waiting, not
  // computing: of its kernels on routed token copies, sized for the busiest GPU of the
  // expert-parallel group (workload/expert_load.hpp), the others compute 1/f on average.
  double waiting_s = 0.0;
};

// What a device stands for.
struct DeviceInfo {
  int rank = 0;       // pipeline rank
  int cls = 0;        // symmetry class
  int gpus = 1;       // GPUs it stands for
  int first_gpu = 0;  // global rank of its representative
  std::string cells;  // its columns, e.g. "0,2-5" (symmetry.hpp)
  // Its compute runs at its slowest GPU's pace (a time factor, >= 1: a straggler's, or the GPU's
  // own speed, hw/variability.hpp); the mean over its GPUs of their own speed over that pace (1:
  // all alike) is the share of that time they compute, waiting the rest.
  double pace = 1.0;
  double pace_share = 1.0;
  int sms_reserved = 0;  // StepGraph::sms_reserved of its job's program
  int slowest_gpu = -1;  // the global rank of the GPU that sets its pace (-1: all alike)
};

struct StepGraph {
  int devices = 0;
  int classes = 1;                        // per pipeline rank; device = rank·classes + class
  int cell = 1;                           // GPUs per cell (symmetry.hpp)
  std::vector<DeviceInfo> info;           // per device
  std::vector<std::vector<int>> couples;  // ops that run as one collective over classes
  // Bytes/s of every link (faults applied), shared by the communication ops in flight; empty:
  // they do not interact (analytic or free network). After merge_equivalent_links(), a "link" is
  // a class of topology links that every profile loads alike and that have one capacity.
  std::vector<double> link_capacity;
  // Per topology link, its class after merge_equivalent_links(); -1: no op loads it.
  std::vector<int> link_class_of;
  std::vector<std::vector<net::LinkLoad>> loads;    // profiles, sorted by link, shared by pieces
  std::vector<std::vector<net::LoadPiece>> shapes;  // pieces of a run, in order, shared by ops
  // Each GPU's HBM, shared by the compute and communication ops in flight on it (bytes/s, the
  // device's measured copy bandwidth); 0: not shared (analytic or free network). A compute op
  // with HBM bytes runs through `compute_shape`, one piece loading no link.
  double hbm_capacity = 0.0;
  int compute_shape = -1;
  // Each GPU's SMs, shared as the executor's header says, when HBM is: its SMs, and those its
  // compute kernels leave to communication kernels (parallelism.comm_sms: compute is timed on
  // the rest). 0: not shared. Graphs of several jobs joined into one (step_jobs.hpp) keep each
  // job's own on its devices (DeviceInfo::sms_reserved).
  int sms = 0, sms_reserved = 0;
  // A communication op's time beside the compute op in flight on its GPU (or its peer's), as a
  // factor of its own, when the compute's kernels are compute-bound and when memory-bound
  // (spec::CommBesideCompute; the executor blends them by the op's Demand): its speed is bounded
  // by 1 / factor. 1: not slowed. Applies where communication runs on the live fabric.
  double comm_beside_compute_bound = 1.0, comm_beside_memory_bound = 1.0;
  bool comm_contention() const {
    return comm_beside_compute_bound > 1.0 || comm_beside_memory_bound > 1.0;
  }
  int reserved_sms(int device) const {
    return info.empty() ? sms_reserved : info[device].sms_reserved;
  }
  std::vector<StepOp> ops;
  std::vector<OpFacts> facts;  // per op
  std::vector<std::array<std::vector<int>, workload::kStreams>>
      streams;  // per device: op ids in issue order

  int add(StepOp op, OpFacts facts = {});  // appends to its device's stream; returns its id
  // An op's shape of one piece: `load`'s bytes evenly over its whole run.
  int add_shape(std::vector<net::LinkLoad> load);
  // Merges links that have the same capacity and the same bytes in every profile into one: a
  // symmetric layout loads all its GPUs' NVLink and NIC links alike, so the executor solves a
  // few classes where the topology has thousands of links. Exact: a class's constraint is the
  // one every member link would impose.
  void merge_equivalent_links();
  std::string name(int op) const;  // e.g. "F mb12 L4 attn"
  // The operation alone, for views that aggregate by name: a kernel group's part and direction
  // ("attn fwd", "experts bwd", "head fwd"; a weight-gradient or step-end op by its part alone,
  // "weight grad", "optimizer step"), a transfer's part ("dispatch", "combine grad").
  std::string operation(int op) const;
  // Pipeline rank, GPUs stood for, and "12" or, with several classes, "12, cells 0,2-5".
  int rank_of(int device) const { return info.empty() ? device : info[device].rank; }
  int gpus_of(int device) const { return info.empty() ? 1 : info[device].gpus; }
  std::string label(int device) const;
  // The program work op `op` times (StepOp::chain, work), or nullptr for an op that times none.
  const workload::Work* work(const workload::StepProgram& program, int op) const;
  // Its columns for people: "0,2-5", or "0-7,... (64 cells)" when the list is long.
  std::string short_cells(int device) const;
};

}  // namespace stepsim::exec
