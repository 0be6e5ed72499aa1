// Builds the step graph of a scenario: the pipeline schedule's instructions expanded into kernels
// and communication per layer and micro-batch, plus the data-parallel work of the step's end.
//
// Per layer, forward: attention (with the MoE router) -> [tensor-parallel all-reduce] ->
// [expert dispatch -> experts -> combine] or the dense MLP [-> all-reduce]. Backward runs the
// mirror image (the combine's transpose sends gradients to the experts in the dispatch precision,
// the dispatch's transpose returns them in the combine precision), with recomputed ops' forward
// FLOPs added (under full recomputation also the forward's tensor-parallel all-reduces and, for
// an MoE layer, its dispatch and combine, ahead of the layer's backward), and the weight gradient
// either fused (BW) or as a separate W kernel per layer (ops with weights only) when the schedule
// splits it. An overlapped F&B pair (DualPipe) interleaves the two chunks' items so
// one chunk's communication runs under the other's compute.
// Kernel time: each op of the cost model is one kernel (kernel_time.hpp), with the SMs left by
// `comm_sms` (held for the whole step when set: DeepSeek partitions them statically) and the
// device's straggler slowdown (the slowest GPU of the pipeline rank: its replicas wait for it at
// every expert and data-parallel exchange).
// Communication time: each distinct collective is run once on the cluster's network (flow or
// analytic fidelity) over the groups of the pipeline rank's first replica, and reused.
// Pipeline sends leave as soon as their chunk is computed (no batching of sends).
// Data parallelism, one bucket per stage a device holds, on its own stream: after the stage's last
// backward its gradients are reduced over dp (non-expert) and edp (expert) groups (all-reduce for
// ZeRO-0, reduce-scatter for 1/2), overlapping the device's remaining backward work; when all
// traffic is done the optimizer runs and ZeRO-1/2 all-gather each stage's parameters. (Per-layer
// buckets are not modelled.) ZeRO-3 gathers each layer (dense over dp, experts over edp) before its
// forward and again before its backward, at most zero3_prefetch layers ahead, and reduce-scatters
// its gradients after, every micro-batch, all on the communication stream.
// Collectives on different streams of a device (layer traffic, pipeline sends, data-parallel
// buckets) are timed independently: where they overlap in time they do not slow each other down.
// Kernel times: kernel_time.hpp (without sequence parallelism the norms run on every token on
// every tensor-parallel rank; the other elementwise ops act on tensor-parallel shards).
#pragma once

#include <cstdint>

#include "sim/engine/simulator.hpp"
#include "sim/hw/topology.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "sim/workload/pipeline_schedule.hpp"
#include "sim/workload/step_graph.hpp"

namespace stepsim::workload {

struct StepBuild {
  StepGraph graph;
  PipelineProgram program;
  std::uint64_t network_events = 0;  // events spent timing the collectives
  int collectives_timed = 0;
};

StepBuild build_step(const ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost,
                     const hw::Topology& topo, const engine::RunControl* control = nullptr);

}  // namespace stepsim::workload
