// One scenario, simulated end to end, the four hops of the data flow: the layout and the step
// program (workload), its roofline bound (analysis, a fold of the program), its execution on the
// cluster (exec), and the metrics of the timeline (analysis: breakdown, throughput, memory).
#pragma once

#include <memory>

#include "sim/analysis/memory_timeline.hpp"
#include "sim/analysis/roofline.hpp"
#include "sim/analysis/step_metrics.hpp"
#include "sim/exec/step_builder.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::run {

struct StepSimulation {
  analysis::Roofline roofline;
  std::shared_ptr<const hw::Topology> topology;  // shared by jobs on one fabric (jobs.hpp)
  workload::StepProgram program;                 // what the step runs, untimed
  exec::StepBuild build;  // the program timed on the cluster, as the executor runs it
  exec::StepTimeline timeline;
  analysis::StepMetrics metrics;
  analysis::MemoryTimeline memory;
  double model_flops_per_gpu = 0.0;  // training FLOPs (no recompute) per GPU per step
  analysis::StepFigures figures;
  double wall_s = 0.0;  // wall-clock time of the simulation itself
};

// Refuses (engine::UserError) a scenario whose step graph would exceed `max_ops` operations.
// `plan`: the scenario's layout when the caller has made it (workload::make_plan).
StepSimulation simulate_step(const spec::ScenarioSpec& spec,
                             const engine::RunControl* control = nullptr, double max_ops = 2e7,
                             const workload::ParallelPlan* plan = nullptr);

// The metrics of a timed step (s.build.graph, s.timeline, s.roofline set): breakdown, memory,
// throughput figures.
void measure_step(StepSimulation& s, const spec::ScenarioSpec& spec);

// Operations the step graph will have, estimated from the layout before building it.
double estimate_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan);
// Throws engine::UserError when the step would need more than `max_ops` operations.
void check_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan, double max_ops);
// Memory the simulation will take (topology, step graph, timeline, events), estimated from the
// layout before building anything.
double estimate_memory_bytes(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan);

}  // namespace stepsim::run
