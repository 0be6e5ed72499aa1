// Two expert-parallel groups whose traffic crosses the same degraded leaf uplinks slow each other
// in the step, beyond what either sees alone. 16 nodes of 8 GPUs, 6 nodes per leaf (12-port
// switches): the groups of nodes 0-7 and 8-15 both leave or enter leaf 1 (nodes 6-11); both of
// its uplinks on plane 0 run at a tenth. Both groups are touched by the fault, so each is a
// symmetry class of its own, timed alone; on the live fabric their exchanges, in flight at once,
// share the degraded links.
#include <doctest/doctest.h>

#include "sim/run/pipeline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("Two expert groups crossing one degraded leaf's uplinks slow each other") {
  spec::ScenarioSpec s = test::small_scenario(16, 8);
  s.cluster.fabric.switch_ports = 12;
  s.model.moe = {true, 64, 0, 4, 1024, 0, 1, 0, 0, {}};
  s.parallel.ep = 64;
  s.training.global_batch = 128;
  for (int spine : {0, 1}) {
    spec::FaultSpec f;
    f.kind = spec::FaultKind::link_degrade;
    f.plane = 0;
    f.leaf = 1;
    f.spine = spine;
    f.factor = 0.1;
    s.cluster.faults.push_back(f);
  }
  const run::Result sim = run::simulate_step(s);
  const auto& g = sim.build.graph;
  REQUIRE(g.classes == 2);
  int first[2] = {-1, -1};
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto& op = g.ops[i];
    if (op.kind == workload::StepOpKind::ep_dispatch && op.phase == workload::Phase::forward &&
        first[op.device] < 0)
      first[op.device] = static_cast<int>(i);
  }
  REQUIRE(first[0] >= 0);
  REQUIRE(first[1] >= 0);
  for (int op : first) {
    const engine::Time alone = g.ops[op].duration;
    const engine::Time ran = sim.timeline.end[op] - sim.timeline.start[op];
    MESSAGE(g.name(op) << " on device " << g.ops[op].device << ": alone " << alone.to_string()
                       << ", in the step " << ran.to_string());
    CHECK(sim.timeline.start[op] == sim.timeline.start[first[0]]);  // in flight together
    CHECK(ran.seconds() > alone.seconds() * 1.2);
  }
}
