// The step program: what every pipeline rank runs in one training step, in schedule order, with
// no timing. Built once from the scenario (build_program, step_program.hpp); the roofline is a fold
// over it (analysis/roofline.hpp) and the executor times and runs it (exec/instantiate.hpp,
// exec/step_executor.hpp), so both count the same work.
//
// A rank runs its schedule's instructions (pipeline_schedule.hpp) in order; each instruction runs
// one chunk (a stage's forward, backward or weight gradient for one micro-batch) or, for an
// overlapped F&B pair, two interleaved. A chunk's work is a chain (layer_chains.hpp): works in
// dependency order, each a run of kernels on the compute stream or a collective on a
// communication stream. Chains depend only on (stage, pass), so the program holds each once and
// its chunks refer to it. A chunk whose output goes to another rank ends with a pipeline send of
// `send_bytes` to it. The step ends with the data-parallel works of `tail`.
// Dependencies, as the executor instantiates them (explicit_sends below changes the cross-chunk
// ones):
//  - inside a chain, through the works' flags (after_prev, blocks_next, feeds_next for the next
//    compute work, after_back for a work further back, as a ring attention step waits for the
//    shift beside the step before it, and ZeRO-3's gathers wait_units_back uses back);
//  - across chunks: F(s, j) needs F(s-1, j); B(s, j) and the fused backward need F(s, j) and
//    B(s+1, j); W(s, j) needs B(s, j): the producer's pipeline send, or its last work when both
//    run on the same rank;
//  - a stream runs its works one at a time in issue order;
//  - a work issued after a host synchronisation (Work::host_sync) waits for what it waited for;
//  - tail: each stage's gradient reduction after the stage's last backward work, the optimizer
//    after everything, the parameter gather after the optimizer.
// Collectives name their group by role (tp, ep, dp, edp), resolved by the executor on the GPUs
// each simulated device stands for. Kernels are hw::Kernel descriptions for the device's
// KernelModel.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/net/transfers.hpp"
#include "sim/workload/layer_index.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "sim/workload/phase.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace stepsim::workload {

// The streams of a device: `compute` (kernels), `comm` (collectives in the layers' path: expert
// dispatch/combine, tensor-parallel all-reduce, ZeRO-3 parameter gathers), `p2p` (pipeline
// sends) or `dp` (gradient reductions and parameter gathers of data parallelism, which
// frameworks run on a stream of their own so they overlap the remaining backward). A stream runs
// its works one at a time in issue order.
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
  cp_exchange,  // context parallelism's K, V (or Q, K, V, output) exchanges
  optimizer,
  // Not in a program: the executor's wait before a collective for its slowest member to arrive
  // (kernel jitter, hw/variability.hpp).
  barrier
};
std::string_view to_string(StepOpKind k);
inline bool is_communication(StepOpKind k) {
  return k != StepOpKind::kernel && k != StepOpKind::optimizer && k != StepOpKind::barrier;
}
// A collective of a layer that starts only once every member has arrived (a group's first step,
// DeepEP's notify): the ones kernel jitter delays (hw/variability.hpp).
inline bool waits_for_peers(StepOpKind k) {
  return k == StepOpKind::tp_reduce || k == StepOpKind::ep_dispatch ||
         k == StepOpKind::ep_combine || k == StepOpKind::zero_gather ||
         k == StepOpKind::zero_scatter || k == StepOpKind::cp_exchange;
}

// A collective, resolved when the program is built (make_collective, collective_options.hpp): its
// kind of traffic and the choice it runs with (algorithm, protocol, channels and chunks fixed, as
// the scenario's network.collectives or the tuner made them for the group's layout). The roofline
// counts it and the executor runs it with that choice: neither chooses again.
struct CollectiveWork {
  net::CollectiveOp op = net::CollectiveOp::all_reduce;
  double bytes = 0.0;  // per GPU
  GroupRole group = GroupRole::tp;
  spec::TrafficKind kind = spec::TrafficKind::tp;
  net::PlanOptions options;
};

// A synchronisation by the host before it issues a work: `device` (torch.cuda.synchronize: the
// work and everything the host issues after it start only once everything issued before has
// finished, on every stream of the device) or `stream` (the same for what was issued before on
// the work's own stream: torch.cuda.Stream.synchronize).
enum class HostSync : std::uint8_t { none, stream, device };

// One work of a chain or of the tail: kernels run back to back, or collectives one after another.
struct Work {
  StreamKind stream = StreamKind::compute;
  StepOpKind kind = StepOpKind::kernel;
  std::string part;
  int layer = kNoLayer;                     // or a layer index (layer_index.hpp)
  std::vector<hw::Kernel> kernels;          // compute: what it launches, in order
  std::vector<CollectiveWork> collectives;  // communication
  bool after_prev = true;                   // depends on the previous work of the chain
  bool blocks_next = true;   // the next work depends on it (and later works through it)
  bool feeds_next = false;   // the next compute work that follows its predecessor depends on it
  bool ends_unit = false;    // the last compute work of a ZeRO-3 unit's use (zero3_placement.hpp)
  bool couples = false;      // a collective over data-parallel groups: couples symmetry classes
  int wait_units_back = -1;  // ZeRO-3 gather: depends on the end of the use this many back
  int after_back = 0;        // > 0: also depends on the work this many places earlier in the chain
  HostSync host_sync = HostSync::none;  // before it is issued

  double flops() const;  // of its kernels
  double bytes() const;  // of its collectives, per GPU
};
using Chain = std::vector<Work>;
// The chain index that names a rank's tail (StepProgram::tail) where a work is named by its chain.
inline constexpr int kTailChain = -2;

// A chunk an instruction runs: a phase (forward, backward, backward with weight gradient, or
// weight gradient) on a task, with its chain; `send_to` is the rank its output goes to, -1 when
// none (a weight gradient, the first or last stage, or the neighbour stage on the same rank).
struct Chunk {
  Phase phase = Phase::forward;
  StageTask task;
  int chain = 0;
  int send_to = -1;
};

// The chunks of one instruction: one, or an overlapped pair (forward first, then the backward)
// whose works interleave, the backward's first. Held in place: a program has one per
// instruction of the schedule.
class Chunks {
 public:
  Chunks() = default;
  Chunks(std::initializer_list<Chunk> chunks);  // one or two
  std::size_t size() const { return n_; }
  const Chunk& operator[](std::size_t i) const { return items_[i]; }
  const Chunk& front() const { return items_[0]; }
  const Chunk* begin() const { return items_.data(); }
  const Chunk* end() const { return items_.data() + n_; }

 private:
  std::array<Chunk, 2> items_{};
  std::uint8_t n_ = 0;
};

// An instruction of a rank: compute (one chunk, or an overlapped pair), or, in a schedule that
// places its communication explicitly (DualPipe's), a send or a receive at that point of the
// rank's order.
struct Instruction {
  enum class Kind : std::uint8_t { compute, send, recv };
  Kind kind = Kind::compute;
  Chunks chunks;                 // compute
  Phase phase = Phase::forward;  // send, recv: activations (forward) or gradients (backward)
  StageTask task;                // send: the task whose output it sends; recv: the one it feeds
};

// A data-parallel work of the step's end.
struct TailWork {
  // stage_backward: the stage's (or its bucket's layers') last backward work; backward: the rank's
  // last compute work before its tail (its whole backward); everything: that and every stream's
  // last op, and the works after stage_backward or backward; optimizer: the optimizer step.
  enum class After : std::uint8_t { stage_backward, backward, everything, optimizer };
  Work work;
  After after = After::everything;
  int stage = -1;  // stage_backward: the stage whose gradients it reduces
  // stage_backward: the layers of its gradient bucket, whose last backward work it waits for
  // (empty: the stage's last backward work).
  std::vector<int> layers;
};

struct StepProgram {
  ParallelPlan plan;         // the layout it was built for
  PipelineProgram pipeline;  // the schedule (its instruction lists are dropped: see ranks)
  std::vector<Chain> chains;
  std::vector<std::vector<Instruction>> ranks;  // per pipeline rank, in issue order
  std::vector<std::vector<TailWork>> tail;      // per pipeline rank
  double send_bytes = 0.0;  // a pipeline send's bytes per GPU (activations or their gradients)
  double sm_share = 1.0;    // SMs left to compute kernels while communication holds its own
  int comm_sms = 0;         // SMs compute kernels leave to communication (parallelism.comm_sms)
  // The busiest GPU's routed token copies over the mean (expert_load.hpp), which the experts'
  // kernels and exchanges were built for (1: balanced routing, or no experts).
  double expert_load = 1.0;
  // Memory (memory.hpp): per pipeline rank, its static state (parameters, gradients, optimizer,
  // ZeRO-3 buffers); per stage, one micro-batch's activations, live from its forward to its
  // backward.
  std::vector<double> static_bytes;
  std::vector<double> activation_bytes;
  net::PlanOptions send_options;  // the pipeline sends' (network.collectives.pp)
  // The schedule places its sends and receives (Instruction::Kind::send, recv): an output leaves
  // at its send instruction, and a compute instruction waits for every receive posted before it.
  // Otherwise an output leaves as soon as its chunk is computed, and a chunk waits for its input.
  bool explicit_sends = false;
  // The compute stream waits for each pipeline send to finish before its next work
  // (spec::PipelineSends::blocking).
  bool blocking_sends = false;
  double host_per_op_s = 0.0;  // spec::SoftwareSpec::host_per_op_s
};

// What pipeline rank `rank` runs over the step, for the folds that add its work up (the roofline,
// kernel classes): each chain it runs, once, with the number of its chunks that run it
// (visit.chain(chain, runs), in chain order); its pipeline sends, as the count per destination
// rank (visit.sends(counts), once); then its tail's works (visit.tail(work)).
template <class Visitor>
void fold(const StepProgram& program, int rank, Visitor&& visit) {
  std::vector<double> runs(program.chains.size(), 0.0);
  std::vector<double> sends(program.ranks.size(), 0.0);
  for (const Instruction& in : program.ranks[rank])
    for (const Chunk& c : in.chunks) {
      runs[c.chain] += 1.0;
      if (c.send_to >= 0) sends[c.send_to] += 1.0;
    }
  for (std::size_t c = 0; c < runs.size(); ++c)
    if (runs[c] > 0.0) visit.chain(static_cast<int>(c), runs[c]);
  visit.sends(sends);
  for (const TailWork& t : program.tail[rank]) visit.tail(t.work);
}

}  // namespace stepsim::workload
