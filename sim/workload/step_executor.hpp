// Executes a step graph on the event engine: every stream of every device runs its ops in issue
// order, each starting when its stream is free and its dependencies are done.
// Communication ops running at once on different streams of one device (an expert all-to-all,
// a pipeline send, a data-parallel reduction) share the device's NVLink port and NIC. Op c,
// timed alone at T_c, moves a_cr = bytes_r(c) / T_c over resource r; together the ops run at a
// fraction x_c <= 1 of their own speed, max-min fair under Σ_c x_c·a_cr <= capacity_r (progressive
// filling over the two resources; an op alone is never slowed). Rates change only when such an op
// starts or ends; an op's end moves with them. A fluid approximation: latency-bound ops, which
// use little bandwidth on average, overlap freely; traffic of other devices is not seen.
// A graph that cannot finish (a dependency cycle through the streams' orders) is a deadlock
// naming the stuck ops.
#pragma once

#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/workload/step_graph.hpp"

namespace stepsim::workload {

struct StepTimeline {
  std::vector<engine::Time> start, end;  // per op
  engine::Time step;                     // T: the last end
  std::uint64_t events = 0;
};

StepTimeline execute_step(const StepGraph& graph, const engine::RunControl* control = nullptr);

}  // namespace stepsim::workload
