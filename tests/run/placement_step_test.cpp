// A step under another placement: the same layout, its nodes under other leaves. 8 nodes of 8
// GPUs, 4 per leaf (8-port switches: one spine per plane) at 4:1 oversubscription; tp 8 in a
// node, dp 8 over the nodes: packed, a data-parallel ring leaves each leaf once; spread, nodes
// alternate between the two leaves and every hop climbs, four rings' hops on each leaf's uplink.
#include <doctest/doctest.h>

#include "sim/run/jobs.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

spec::ScenarioSpec job(int nodes, spec::Placement placement) {
  spec::ScenarioSpec s = test::small_scenario(nodes, 8);
  s.cluster.fabric.switch_ports = 8;
  s.cluster.fabric.oversubscription = 4.0;
  s.cluster.placement = placement;
  s.cluster.slots = spec::placement_slots(s.cluster, placement);
  s.parallel.tp = 8;
  s.training.global_batch = 4 * nodes;
  return s;
}

}  // namespace

TEST_CASE("Spread over oversubscribed leaves, a ring of nodes is slower; every cell on its own") {
  const auto packed = run::simulate_step(job(8, spec::Placement::packed));
  const auto spread = run::simulate_step(job(8, spec::Placement::spread));
  MESSAGE("packed " << packed.metrics.step_s << " s, spread " << spread.metrics.step_s << " s");
  CHECK(spread.metrics.step_s > packed.metrics.step_s * 1.001);
  CHECK(spread.build.graph.classes == 8);  // cells of one node: 8 per rank, none merged
  auto exact = job(8, spec::Placement::spread);
  exact.exact = true;
  CHECK(run::simulate_step(exact).metrics.step_s == spread.metrics.step_s);
}

TEST_CASE("Jobs on one fabric spread over its leaves share uplinks they would not packed") {
  const auto packed =
      run::simulate_jobs({job(4, spec::Placement::packed), job(4, spec::Placement::packed)});
  const auto spread =
      run::simulate_jobs({job(4, spec::Placement::spread), job(4, spec::Placement::spread)});
  CHECK(packed[0].shared.empty());
  CHECK(!spread[0].shared.empty());
  CHECK(spread[0].sim.topology->spec().slots.size() == 8);  // spread over the whole fabric
  CHECK(spread[0].slowdown() > 0.0);
  spec::ScenarioSpec listed = job(4, spec::Placement::packed);
  listed.cluster.placement = spec::Placement::list;
  listed.cluster.slots = {3, 2, 1, 0};
  CHECK_THROWS_AS(run::shared_fabric({listed, job(4, spec::Placement::packed)}), engine::UserError);
}
