// Everything one simulation needs, as plain values: model, cluster, training, parallelism.
// `where` remembers which file, line and column each field came from, so that checks done
// after loading (impossible parallelism, memory) still point the user at the right line.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/user_error.hpp"
#include "sim/spec/cluster.hpp"
#include "sim/spec/model.hpp"
#include "sim/spec/names.hpp"
#include "sim/spec/parallel.hpp"
#include "sim/spec/training.hpp"

namespace stepsim::spec {

struct Provenance {
  engine::SourceLoc file;                         // the scenario file itself
  std::map<std::string, engine::SourceLoc> keys;  // "parallelism.pp" -> where it was set
  std::vector<std::string> files;  // every file read: scenario, model, cluster, device
  // The last this many of cluster.faults are the scenario's own `faults:` (the rest its cluster's).
  std::size_t scenario_faults = 0;
  // Where `path` was set, else the closest enclosing key, else the file.
  engine::SourceLoc at(const std::string& path) const;
};

// flow: max-min sharing; analytic: α + S/β per transfer; free: communication takes no time
// (isolates pipeline bubbles and compute).
enum class NetworkFidelity { flow, analytic, free };
inline constexpr Names<NetworkFidelity, 3> kNetworkFidelities{{{"flow"}, {"analytic"}, {"free"}}};
std::string_view to_string(NetworkFidelity f);  // its word

// Kinds of traffic, each with its own collective choice (network.collectives):
//   tp    tensor-parallel collectives
//   ep    the expert dispatch and combine
//   dp    gradient reductions over the data-parallel groups (dp and expert dp)
//   zero  ZeRO-3's parameter all-gathers and gradient reduce-scatters
//   pp    pipeline sends
//   cp    context parallelism's exchanges of K and V (or of Q, K, V and the output)
enum class TrafficKind { tp, ep, dp, zero, pp, cp };
inline constexpr int kTrafficKinds = 6;
std::string_view to_string(TrafficKind k);

// What a scenario fixes of its collectives; "auto" and 0 leave it to the tuner (net/tuner.hpp).
// What the numbers buy and cost:
//  - channels (1 to 64; 0: the tuner's 2 per GPU of a node, 16 on 8-GPU nodes): NCCL's channels,
//    one CTA each on an SM of its own while the collective runs. More channels spread a ring or
//    tree over up to one NIC (rail) per GPU of the node and cut the data into fewer chunks; the
//    SMs they hold are taken from the compute kernels beside the collective (workload/
//    collective_options.hpp, held_sms; the executor shares SMs). 1: one ring through one NIC per
//    node, the fewest SMs; 64: the most SMs held, no more rails than GPUs per node.
//  - chunks (1 to 1024; 0: the tuner's, span / (channels x the protocol's step payload)): the
//    pieces each step's data is cut into, which pipeline through the steps one stage behind each
//    other (net/transfer_dag.hpp): a phased algorithm's phases overlap (the hierarchical
//    all-reduce's NVLink and InfiniBand phases); a ring's one phase carries every chunk of every
//    step over the same links whatever the cut. Each chunk after the first adds its latency
//    (later_chunk_latency). 1: no overlap, each phase waits for the whole of the one before (for
//    a large message, pieces larger than NCCL's buffers hold: a what-if); 1024: most overlap,
//    most latency (a small message pays 1023 chunks' latencies for nothing).
// Neither moves bytes: an algorithm's bytes per link are its closed form at any setting.
struct CollectiveChoice {
  std::string algorithm = "auto";
  std::string protocol = "auto";
  int channels = 0;
  int chunks = 0;
};

// When data-parallel gradients are reduced:
//  - buckets: as Megatron-Core's DistributedDataParallel with overlap_grad_reduce, bucket by
//    bucket as the backward produces them (grad_bucket_params), overlapping the rest of it;
//  - after_backward: as Megatron-LM's local DDP of 2021 (--DDP-impl local, its default), after the
//    whole backward of the step: train_step (megatron/training.py) calls each model chunk's
//    allreduce_gradients() once forward_backward_func has returned, one all-reduce of the chunk's
//    contiguous gradient buffer per dtype (megatron/model/distributed.py), before the optimizer.
enum class GradReduce { buckets, after_backward };
inline constexpr Names<GradReduce, 2> kGradReduces{
    {{"buckets", "bucket by bucket, overlapping the backward"},
     {"after_backward", "after the whole backward"}}};

// How pipeline sends run beside the compute:
//  - async: on their own stream, the compute going on (Megatron-Core's overlap_p2p_comm, and the
//    schedules that place their sends);
//  - blocking: the compute stream waits for each send to finish before its next work, as
//    Megatron-LM's _communicate of 2021 does (megatron/p2p_communication.py: batch_isend_irecv,
//    req.wait() on every request, then torch.cuda.synchronize() "to protect against race
//    condition when using batch_isend_irecv()").
enum class PipelineSends { async, blocking };
inline constexpr Names<PipelineSends, 2> kPipelineSends{
    {{"async", "beside the compute"}, {"blocking", "the compute waits for each"}}};

// The software a scenario's step ran with (scenarios/software/*.yaml): a named preset whose
// choices (the attention core's implementation, its dropout) become the training section's
// defaults, which the scenario's own keys override.
struct SoftwareSpec {
  std::string name = "default";  // no preset: FlashAttention, no attention dropout
  std::string source;            // the citation of its choices
  std::string gemm_library;      // the library its GEMMs are timed from (empty: any table's)
  // Data-parallel gradient buckets (Megatron-Core's DistributedDataParallel with
  // overlap_grad_reduce): at most this many parameters a bucket, each reduced as soon as the last
  // backward of its layers is done; 0: Megatron-Core's default, max(40e6, 1e6 x dp)
  // (megatron/core/distributed/distributed_data_parallel_config.py, bucket_size). As Megatron-Core
  // does, only pipeline rank 0 buckets: later ranks finish their backward earlier, off the
  // critical path, and reduce each stage in one bucket. The bytes reduced are the same at every
  // size (1e3 to 1e12 parameters): a bucket holds whole layers and closes once it reaches the
  // size, so 1e3 is one bucket per layer, each started as its layer's backward ends and each
  // paying a collective's latency and sequential steps; a size of at least the stage's parameters
  // is one reduction after its last backward, nothing overlapped.
  double grad_bucket_params = 0.0;
  GradReduce grad_reduce = GradReduce::buckets;
  PipelineSends pipeline_sends = PipelineSends::async;
  // The framework's host time per op, before the op's kernel is launched (eager PyTorch: Python,
  // argument parsing, the dispatcher); the host issues one kernel per launch_overhead + this.
  // Not given (0): none beyond the launch (CUDA graphs, or a framework that measures none); up
  // to 1 ms, where
  // every short kernel waits on the host. It costs time only, never memory or bytes: the step
  // never gets faster as it grows.
  double host_per_op_s = 0.0;
};

struct ScenarioSpec {
  std::string name;
  SoftwareSpec software;
  NetworkFidelity fidelity = NetworkFidelity::flow;
  std::array<CollectiveChoice, kTrafficKinds> collectives;  // by TrafficKind
  ModelSpec model;
  ClusterSpec cluster;
  TrainingSpec training;
  ParallelSpec parallel;
  bool exact = false;  // simulate every cell of GPUs, without symmetry classes (exec/symmetry.hpp)
  // Bundle symmetric transfers of a collective into one flow with a multiplicity
  // (net/collective_plan.hpp); false: every GPU's transfers are flows of their own, the exact
  // reference for bundling.
  bool bundle = true;
  Provenance where;
  // Settings that do nothing in this layout, each "file:line: what and why" (the commands warn;
  // refusing would break a sweep or a winner file that reaches such a layout by an override).
  std::vector<std::string> without_effect;
};

// "deepseek-v3: attention flash, GEMMs from deepgemm": the preset and what it chose.
std::string software_words(const ScenarioSpec& s);

}  // namespace stepsim::spec
