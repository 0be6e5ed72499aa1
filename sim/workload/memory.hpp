// Memory per GPU for one training step, the most loaded pipeline rank.
//
// Parameters a device holds: for every stage it runs, the non-expert parameters / tp plus the
// routed-expert parameters / ep (experts are not split by tp). Bytes per parameter (ZeRO paper,
// with the precisions of the scenario): params p, gradients g, master copy m (none when it has
// the parameters' precision), two optimizer moments 2·o. ZeRO shards over the data-parallel
// group of each parameter (dp for non-expert, edp = dp·tp/ep for routed experts):
//     stage 0: nothing sharded;  1: master + moments;  2: + gradients;  3: + parameters
// ZeRO-3 also holds the gathered parameters of (prefetch + 1) layers and one layer's full
// gradient before its reduce-scatter: the largest layer counts.
// Activations: the peak number of micro-batches in flight for the schedule (1F1B: pp on the first
// rank; DualPipe: pp+1; GPipe: m) times the saved bytes of the device's largest stage under the
// recompute policy, / tp (exact with sequence parallelism; without it the norms' and residuals'
// share is replicated on every tensor-parallel rank, which this undercounts).
// Context parallelism (cp GPUs per sequence): activations are those of the GPU's s/cp tokens,
// 1/cp of cp = 1's, and one layer's exchange buffers are added (context_parallel.hpp,
// cp_buffer_bytes): they live while the layer's attention runs, one layer at a time.
// ZeRO shards non-expert state over the dp·cp GPUs that hold the same weights.
// Not modelled: allocator fragmentation, CUDA context and library workspaces, communication
// buffers of all-to-all and pipeline transfers, the logits of the head.
#pragma once

#include "sim/workload/held_params.hpp"

namespace stepsim::workload {

struct MemoryBreakdown {
  double params = 0.0;  // bytes
  double grads = 0.0;
  double optimizer = 0.0;  // master copy + moments
  double activations = 0.0;
  double buffers = 0.0;  // ZeRO-3 gathered layers, context parallelism's exchange buffers
  double capacity = 0.0;
  int device = 0;  // pipeline rank it was computed for
  double total() const { return params + grads + optimizer + activations + buffers; }
  bool fits() const { return total() <= capacity; }
};

// HBM bytes of one optimizer step on a device's GPU: every state of its (ZeRO-sharded) parameters
// read and written once.
double optimizer_step_bytes(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                            const ModelCost& cost, int device);

// Activation bytes one micro-batch leaves on a GPU of `stage` until its backward, under the
// recompute policy, / tp.
double stage_activation_bytes(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                              const ModelCost& cost, int stage);

// The memory of a GPU of pipeline rank `device`: its own static state and its peak activations.
MemoryBreakdown memory_of_rank(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                               const ModelCost& cost, int device);
// One layer's context-parallel exchange buffers per GPU (0 without context parallelism).
double cp_buffers(const spec::ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost);

// The most loaded pipeline rank's.
MemoryBreakdown memory_per_gpu(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                               const ModelCost& cost);

}  // namespace stepsim::workload
