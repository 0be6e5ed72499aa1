// One scenario, simulated end to end: layout and roofline, the step graph built from the
// schedule, its execution, the metrics, and the peak memory per GPU seen on the timeline.
//
// Peak memory, per GPU: its own rank's static state (parameters, gradients, optimizer, ZeRO-3
// buffers: memory.hpp) plus its live activations, which grow by a stage's per-micro-batch
// activations when a forward chunk ends and shrink by as much when that chunk's backward (input
// gradient) ends. The peak is the largest such sum over GPUs.
#pragma once

#include <memory>

#include "sim/analysis/roofline.hpp"
#include "sim/analysis/step_metrics.hpp"
#include "sim/exec/step_builder.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::analysis {

// Throughput figures of a simulated step.
struct StepFigures {
  double tokens_per_s_per_gpu = 0.0;
  double tflops_per_gpu = 0.0;
  // Model FLOPs (no recompute) / (T · BF16 dense peak), whatever the GEMM precision.
  double mfu = 0.0;
  int worst_rank = 0;  // global rank of the GPU with the most idle time
};

struct StepSimulation {
  Roofline roofline;
  std::unique_ptr<hw::Topology> topology;
  workload::StepProgram program;  // what the step runs, untimed
  exec::StepBuild build;          // the program timed on the cluster, as the executor runs it
  exec::StepTimeline timeline;
  StepMetrics metrics;
  // Per pipeline rank: memory in use (bytes) after each change, in time order.
  std::vector<std::vector<std::pair<engine::Time, double>>> memory_timeline;
  double peak_memory_bytes = 0.0;
  int peak_memory_device = 0;
  double model_flops_per_gpu = 0.0;  // training FLOPs (no recompute) per GPU per step
  StepFigures figures;
  double wall_s = 0.0;  // wall-clock time of the simulation itself
};

// Refuses (engine::UserError) a scenario whose step graph would exceed `max_ops` operations.
// `plan`: the scenario's layout when the caller has made it (workload::make_plan).
StepSimulation simulate_step(const spec::ScenarioSpec& spec,
                             const engine::RunControl* control = nullptr, double max_ops = 2e7,
                             const workload::ParallelPlan* plan = nullptr);

// Operations the step graph will have, estimated from the layout before building it.
double estimate_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan);
// Throws engine::UserError when the step would need more than `max_ops` operations.
void check_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan, double max_ops);
// Memory the simulation will take (topology, step graph, timeline, events), estimated from the
// layout before building anything.
double estimate_memory_bytes(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan);

}  // namespace stepsim::analysis
