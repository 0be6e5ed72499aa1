// What one step will cost, estimated from its layout before anything is built: the operations of
// its step graph, the symmetry classes per pipeline rank, the memory the simulation takes
// (topology, graph, timeline, events) and what its outputs take while they are written.
#pragma once

#include <atomic>
#include <string>

#include "sim/spec/scenario.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::run {

// The outputs a command writes of a step, sized by the writers' own measured figures
// (report/chrome_trace.hpp, schedule_svg.hpp, html_report.hpp).
struct Outputs {
  double trace_events_per_op = 0.0;  // 0: no trace
  double trace_bytes_per_event = 0.0;
  int trace_ranks = 0;  // the pipeline ranks the trace shows (0: all)
  double max_trace_events = 2e7;
  double bytes_per_op = 0.0;  // diagrams and pages, per operation
  bool any() const { return trace_events_per_op > 0.0 || bytes_per_op > 0.0; }
};

struct Estimates {
  // Per micro-batch and stage: forward and backward items (at most ~6 per layer, plus ZeRO-3
  // gathers), a weight-gradient item per layer, and a pipeline send each way; times the classes.
  double ops = 0.0;
  int classes = 1;
  // Per estimated operation: the graph's op with its dependency lists, its timeline entry, its
  // events and the memory timeline. Measured: the DualPipe scenario grows by 38.6 MB from 15,360
  // to 61,440 sequences (153,600 -> 614,400 estimated operations), 84 B each, before the
  // timeline kept when each piece of a communication op ran (24 B a piece, at most a few per op);
  // kept at over twice that. Plus the topology (hw::Topology::estimate_bytes).
  double memory_bytes = 0.0;
  double trace_events = 0.0;
  double output_bytes = 0.0;  // the outputs' while written
};

Estimates estimate(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan,
                   const Outputs& outputs = {});

// The refusal of work whose estimated memory exceeds --max-memory: a search keeps it as the
// layout's or trial's outcome, with the figure.
class OverMemory : public engine::UserError {
 public:
  OverMemory(engine::UserError e, double need) : engine::UserError(std::move(e)), need_(need) {}
  double need() const { return need_; }  // bytes

 private:
  double need_ = 0.0;
};

// Throws OverMemory at --max-memory when `need` bytes exceed `limit` (none when `limit` <= 0):
// "WHAT would need about N of memory, more than the limit of L", hint "HINT, or raise
// --max-memory".
void check_memory(double need, double limit, const std::string& what, const std::string& hint);

// How many estimates this process has made (a test counts them: one per simulated step).
long long estimates_made();

}  // namespace stepsim::run
