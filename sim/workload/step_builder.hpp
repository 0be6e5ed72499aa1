// Builds the step graph of a scenario: the pipeline schedule's instructions expanded into the
// chains of each chunk (layer_chains.hpp) for every device, plus the data-parallel work of the
// step's end.
//
// Devices: every symmetry class of every pipeline rank (symmetry.hpp); each runs the rank's
// instruction list, its kernels slowed by the slowest GPU of its cells, its collectives timed on
// its representative cell's groups with the class's sibling groups (collective_timer.hpp), each
// carrying its load on the fabric's links for the executor's live fabric (step_executor.hpp).
// An overlapped F&B pair (DualPipe) interleaves the two chunks' items so one chunk's
// communication runs under the other's compute. Pipeline sends go from a class to the same
// class of the next rank and leave as soon as their chunk is computed (no batching of sends).
// Data parallelism, one bucket per stage a device holds, on its own stream: after the stage's last
// backward its gradients are reduced over dp (non-expert) and edp (expert) groups (all-reduce for
// ZeRO-0, reduce-scatter for 1/2), overlapping the device's remaining backward work; when all
// traffic is done the optimizer runs and ZeRO-1/2 all-gather each stage's parameters. (Per-layer
// buckets are not modelled.) These collectives, and ZeRO-3's per-layer gathers and
// reduce-scatters, span every class of the rank: their copies are coupled (StepOp::couple), so
// they start when the last class is ready and end together.
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
