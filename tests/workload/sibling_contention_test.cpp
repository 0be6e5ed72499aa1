// The replicas' expert all-to-alls run together on one network: two expert-parallel groups whose
// traffic crosses the same degraded leaf uplinks slow each other, beyond what either sees alone.
// 16 nodes of 8 GPUs, 6 nodes per leaf (12-port switches): the groups of nodes 0-7 and 8-15 both
// leave or enter leaf 1 (nodes 6-11); both of its uplinks on plane 0 run at a tenth.
#include <doctest/doctest.h>

#include "sim/net/collective_runner.hpp"
#include "sim/workload/collective_timer.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("Two expert groups crossing one degraded leaf's uplinks slow each other") {
  workload::ScenarioSpec s = test::small_scenario(16, 8);
  s.cluster.fabric.switch_ports = 12;
  s.model.moe = {true, 64, 0, 4, 1024, 0, 1, 0, 0};
  s.parallel.ep = 64;
  s.training.global_batch = 128;
  for (int spine : {0, 1}) {
    hw::FaultSpec f;
    f.kind = hw::FaultKind::link_degrade;
    f.plane = 0;
    f.leaf = 1;
    f.spine = spine;
    f.factor = 0.1;
    s.cluster.faults.push_back(f);
  }
  const workload::ParallelPlan plan = workload::make_plan(s);
  const hw::Topology topo(s.cluster);
  REQUIRE(topo.leaves_per_plane() == 3);
  workload::CollectiveTimer timer(s, plan, topo, nullptr);
  const double bytes = 4096.0 * 1024;
  auto alone = [&](int first_node) {
    std::vector<int> g;
    for (int r = first_node * 8; r < (first_node + 8) * 8; ++r) g.push_back(r);
    net::PlanOptions o;
    o.top_k = 4;
    o.max_nodes = 0;
    return net::run_collective(net::plan_collective(net::CollectiveOp::dispatch, bytes, g, topo, o),
                               bytes, 64, topo, hw::Fidelity::flow)
        .time;
  };
  const engine::Time a = alone(0), b = alone(8);
  const engine::Time together = timer.time(net::CollectiveOp::dispatch, bytes, timer.ep_group(0));
  MESSAGE("alone " << a.to_string() << ", " << b.to_string() << "; together "
                   << together.to_string());
  CHECK(together > std::max(a, b));
}
