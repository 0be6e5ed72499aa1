// Jobs on one fabric (run/jobs.hpp): 8-GPU nodes, 2 nodes per leaf (4-port switches), each job
// data-parallel over its nodes (tp 8 inside a node), so its gradient all-reduce crosses leaves.
#include "sim/run/jobs.hpp"

#include <doctest/doctest.h>

#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

spec::ScenarioSpec job(int nodes, double oversubscription = 1.0) {
  spec::ScenarioSpec s = test::small_scenario(nodes, 8);
  s.cluster.fabric.switch_ports = 4;
  s.cluster.fabric.oversubscription = oversubscription;
  s.parallel.tp = 8;
  s.training.global_batch = 4 * nodes;
  return s;
}

}  // namespace

TEST_CASE("Two jobs on disjoint leaves do not slow each other") {
  const spec::ScenarioSpec a = job(4), b = job(4);  // leaves 0-1 and 2-3
  const auto jobs = run::simulate_jobs({a, b});
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[1].first_node == 4);
  CHECK(jobs[0].sim.topology->spec().nodes == 8);
  const double own = run::simulate_step(a).metrics.step_s;
  for (const run::JobRun& r : jobs) {
    CHECK(r.shared.empty());
    CHECK(r.sim.metrics.step_s == r.alone_s);
    CHECK(r.alone_s == doctest::Approx(own).epsilon(1e-12));  // placement at an offset is neutral
  }
}

TEST_CASE("Two jobs sharing a leaf's uplinks slow each other, within their exposed traffic") {
  // Nodes 0-2 and 3-5: leaf 1 holds node 2 of the first job and node 3 of the second, and its
  // uplinks, at a quarter of the NICs' bandwidth, carry both jobs' all-reduces.
  const spec::ScenarioSpec a = job(3, 4.0), b = job(3, 4.0);
  const auto jobs = run::simulate_jobs({a, b});
  for (const run::JobRun& r : jobs) {
    MESSAGE("alone " << r.alone_s << " s, together " << r.sim.metrics.step_s << " s");
    CHECK(r.sim.metrics.step_s > r.alone_s * 1.001);
    // The others can at most stretch the communication it waits for.
    double comm = 0.0;
    const auto& g = r.sim.build.graph;
    for (std::size_t i = 0; i < g.ops.size(); ++i)
      if (workload::is_communication(g.ops[i].kind))
        comm += (r.sim.timeline.end[i] - r.sim.timeline.start[i]).seconds();
    CHECK(r.sim.metrics.step_s <= r.alone_s + comm);
    REQUIRE(!r.shared.empty());
    bool uplinks = false;
    for (const run::SharedLinks& s : r.shared) {
      uplinks |= s.group == hw::LinkGroup::leaf_uplink;
      CHECK(s.own_bytes > 0.0);
      CHECK(s.other_bytes > 0.0);
      MESSAGE(r.sim.topology->link_name(s.busiest));
      CHECK(r.sim.topology->link_name(s.busiest).find("leaf 1") != std::string::npos);
    }
    CHECK(uplinks);
  }
}

TEST_CASE("Jobs that cannot share the fabric are refused at their file") {
  spec::ScenarioSpec a = job(2), b = job(2);
  b.cluster.gpus_per_node = 4;
  CHECK_THROWS_AS(run::shared_fabric({a, b}), engine::UserError);
  b = job(2);
  b.cluster.faults.push_back({});
  CHECK_THROWS_AS(run::shared_fabric({a, b}), engine::UserError);
  b = job(2);
  CHECK(run::shared_fabric({a, b}).nodes == 4);
}
