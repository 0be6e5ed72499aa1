// Executes a step graph on the event engine: every stream of every device runs its ops in issue
// order, each starting when its stream is free and its dependencies are done.
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
