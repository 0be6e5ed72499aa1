// The pipeline every simulating command runs, as typed stages (the data flow of one scenario):
//
//   prepare(spec, limits) -> Prepared   the layout and the step program, built once, with every
//                                       refusal: precisions the device lacks, an invalid layout, a
//                                       program too large to lay out, a step over --max-ops, a
//                                       trace over --max-trace-events, memory over --max-memory
//   bound(prepared)       -> Bounded    the roofline: a fold over the program (analysis/roofline)
//   simulate(bounded, topology)         the program timed on the cluster and executed
//   measure(...)          -> Result     breakdown, throughput, memory over time, kernel classes
//
// simulate_step() runs them in turn. The estimates are made from the layout before the program is
// built (estimates.hpp), so a step that would not fit the limits is refused before anything
// large exists. Reports print what these stages hold and compute nothing (report/).
#pragma once

#include <memory>
#include <string>

#include "sim/analysis/kernel_classes.hpp"
#include "sim/analysis/memory_timeline.hpp"
#include "sim/analysis/roofline.hpp"
#include "sim/analysis/step_metrics.hpp"
#include "sim/exec/instantiate.hpp"
#include "sim/hw/topology.hpp"
#include "sim/run/estimates.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/step_program.hpp"

namespace stepsim::run {

// What a command lets one step cost, and what it wants written of it besides the tables.
struct Limits {
  double max_ops = 2e7;     // simulated operations (--max-ops); 0: no limit (a bound alone)
  double max_memory = 0.0;  // bytes (--max-memory); 0: no limit
  // The memory the command already holds (the steps of a comparison before this one), and how
  // the refusal names this step and what it suggests.
  double memory_before = 0.0;
  std::string memory_what;  // e.g. "s.yaml: simulating this step"
  std::string memory_hint = "use fewer or larger micro-batches";
  Outputs outputs;  // traces and diagrams to be written of the step (estimates.hpp)
};

struct Prepared {
  spec::ScenarioSpec spec;        // the scenario as loaded: the inputs reports print
  workload::StepProgram program;  // program.plan is the layout
  workload::ModelFigures model;   // parameters and FLOPs per token
  workload::MemoryBreakdown memory;
  double tokens_per_step = 0.0;
  Estimates estimates;
  const workload::ParallelPlan& plan() const { return program.plan; }
};

// Refuses (engine::UserError at the scenario's file:line, or at the option whose limit it
// exceeds) what the step cannot run or the limits do not allow; builds its program once.
// `plan`: the layout, when the caller has made it for this scenario (workload::make_plan).
Prepared prepare(const spec::ScenarioSpec& spec, const Limits& limits = {},
                 const workload::ParallelPlan* plan = nullptr);

// A prepared step with its roofline bound: what `stepsim roofline` and `check` print.
struct Bounded {
  Prepared prepared;
  analysis::Roofline roofline;
  const spec::ScenarioSpec& spec() const { return prepared.spec; }
  const workload::ParallelPlan& plan() const { return prepared.program.plan; }
};
Bounded bound(Prepared prepared);

// The simulated step: its graph as timed on the cluster and the timeline the executor ran.
struct Simulation {
  std::shared_ptr<const hw::Topology> topology;  // shared by jobs on one fabric (jobs.hpp)
  exec::StepBuild build;
  exec::StepTimeline timeline;
};
// `ideal`: mechanisms switched off on the step graph (what-if runs, whatif.hpp).
Simulation simulate(const Bounded& b, std::shared_ptr<const hw::Topology> topology,
                    const engine::RunControl* control = nullptr,
                    const exec::Idealisation& ideal = {});

struct Result : Bounded, Simulation {
  analysis::StepMetrics metrics;
  analysis::MemoryTimeline memory;
  double model_flops_per_gpu = 0.0;  // training FLOPs (no recompute) per GPU per step
  analysis::StepFigures figures;
  // The kernels of the roofline's slowest pipeline rank by class, and every compute work's
  // kernels' times alone (for the roofline chart and a trace's kernel detail).
  std::vector<analysis::KernelClassWork> kernel_classes;
  analysis::KernelTimes kernel_times;
  double wall_s = 0.0;  // wall-clock time of the simulation itself
  const workload::StepProgram& program() const { return prepared.program; }
};
Result measure(Bounded b, Simulation s);

// bound, simulate (on a topology of the scenario's own cluster) and measure; `wall_s` is the time
// they took.
Result complete(Prepared prepared, const engine::RunControl* control = nullptr);

// prepare, then complete.
Result simulate_step(const spec::ScenarioSpec& spec, const Limits& limits = {},
                     const engine::RunControl* control = nullptr,
                     const workload::ParallelPlan* plan = nullptr);

}  // namespace stepsim::run
