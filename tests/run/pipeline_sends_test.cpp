// Blocking pipeline sends (spec::PipelineSends::blocking, Megatron-LM 2021): the compute stream
// waits for each send before its next work; async sends leave it running.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/run/pipeline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

run::Result simulate(spec::PipelineSends mode) {
  spec::ScenarioSpec s = test::pipelined_scenario();
  s.software.pipeline_sends = mode;
  return run::simulate_step(s);
}

}  // namespace

TEST_CASE("A blocking send holds its device's next compute until it has finished") {
  const run::Result r = simulate(spec::PipelineSends::blocking);
  const auto& g = r.build.graph;
  int sends = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].kind != workload::StepOpKind::pp_send) continue;
    ++sends;
    int held = 0;  // compute on its device that waits for it (the last send: the optimizer)
    for (std::size_t j = 0; j < g.ops.size(); ++j) {
      const auto& o = g.ops[j];
      if (o.device != g.ops[i].device || o.stream != workload::StreamKind::compute) continue;
      if (std::find(o.deps.begin(), o.deps.end(), static_cast<int>(i)) == o.deps.end()) continue;
      ++held;
      CHECK(r.timeline.start[j] >= r.timeline.end[i]);
    }
    CHECK(held >= 1);
  }
  CHECK(sends > 0);
}

TEST_CASE("Async sends leave the compute running: the step is no longer than with blocking ones") {
  const run::Result async = simulate(spec::PipelineSends::async);
  const run::Result blocking = simulate(spec::PipelineSends::blocking);
  // Only the optimizer waits for a send of its own device (the step's end), none before it.
  for (const auto& o : async.build.graph.ops)
    for (int dep : o.deps) {
      const auto& d = async.build.graph.ops[static_cast<std::size_t>(dep)];
      if (o.stream == workload::StreamKind::compute && d.device == o.device &&
          d.kind == workload::StepOpKind::pp_send)
        CHECK(o.kind == workload::StepOpKind::optimizer);
    }
  CHECK(async.metrics.step_s < blocking.metrics.step_s);
}
