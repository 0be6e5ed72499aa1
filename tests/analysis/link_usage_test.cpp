#include "sim/analysis/link_usage.hpp"

#include <doctest/doctest.h>

#include "sim/analysis/step_simulation.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using analysis::LinkGroup;

namespace {

// Four nodes of eight GPUs: tensor parallelism inside a node, pipeline and data parallelism
// across nodes, so that every link group carries traffic.
workload::ScenarioSpec four_nodes() {
  auto spec = test::small_scenario(4, 8);
  spec.parallel.pp = 2;
  spec.parallel.tp = 4;
  spec.parallel.schedule = workload::Schedule::named("1f1b");
  spec.training.global_batch = 16;
  spec.cluster.fabric.switch_ports = 4;  // two nodes a leaf: traffic between leaves climbs
  return spec;
}

double group_bytes(const analysis::LinkUsage& u, LinkGroup g) {
  return u.bytes[static_cast<int>(g)];
}

}  // namespace

TEST_CASE("Link usage: the bytes binned per group are the bytes the step's ops sent") {
  // Links carry wire bytes, the data over the protocol's payload share: with the Simple protocol
  // (payload share 1) they are the data bytes the ops count.
  auto spec = four_nodes();
  for (auto& c : spec.collectives) c.protocol = "simple";
  const auto sim = analysis::simulate_step(spec);
  const auto& g = sim.build.graph;
  const auto u = analysis::link_usage(g, sim.timeline, *sim.topology, 50, 5);
  REQUIRE(u.live);
  CHECK(u.bin_s == doctest::Approx(sim.metrics.step_s / 50));
  // A byte a GPU sends over its NVLink port enters another GPU by its port: two NVLink links. A
  // byte it sends by its NIC crosses its NIC port, the NIC's cable to the leaf, and the same two
  // at the receiver: four links of the NIC group.
  double nvlink = 0.0, ib = 0.0;
  for (const auto& op : g.ops) {
    nvlink += op.nvlink_bytes * g.gpus_of(op.device);
    ib += op.ib_bytes * g.gpus_of(op.device);
  }
  REQUIRE(ib > 0.0);
  CHECK(group_bytes(u, LinkGroup::nvlink) == doctest::Approx(2.0 * nvlink).epsilon(1e-9));
  CHECK(group_bytes(u, LinkGroup::nic) == doctest::Approx(4.0 * ib).epsilon(1e-9));
  CHECK(group_bytes(u, LinkGroup::leaf_uplink) > 0.0);
  CHECK(group_bytes(u, LinkGroup::leaf_uplink) ==
        doctest::Approx(group_bytes(u, LinkGroup::spine_downlink)));
  // The bins add up to the totals, and the mean is the totals over capacity and time.
  for (int k = 0; k < analysis::kLinkGroups; ++k) {
    double sum = 0.0;
    for (double x : u.utilisation[k]) {
      CHECK(x >= 0.0);
      sum += x * u.capacity[k] * u.bin_s;
    }
    CHECK(sum == doctest::Approx(u.bytes[k]));
    CHECK(u.mean(static_cast<LinkGroup>(k)) <= u.peak(static_cast<LinkGroup>(k)) + 1e-12);
  }
  CHECK(u.links[static_cast<int>(LinkGroup::nvlink)] == 2 * 32);
  CHECK(u.links[static_cast<int>(LinkGroup::nic)] == 4 * 32);
}

TEST_CASE("Link usage: the busiest links, named, highest first, alike ones counted once") {
  const auto spec = four_nodes();
  const auto sim = analysis::simulate_step(spec);
  const auto u = analysis::link_usage(sim.build.graph, sim.timeline, *sim.topology, 20, 4);
  REQUIRE(u.busiest.size() == 4);
  int alike = 0;
  for (std::size_t i = 0; i < u.busiest.size(); ++i) {
    const auto& b = u.busiest[i];
    CHECK(!b.name.empty());
    CHECK(b.name == sim.topology->link_name(b.link));
    CHECK(b.group == analysis::link_group(*sim.topology, b.link));
    CHECK(b.utilisation ==
          doctest::Approx(b.bytes / (sim.topology->links()[b.link].bandwidth * u.step_s)));
    if (i > 0) CHECK(u.busiest[i - 1].utilisation >= b.utilisation);
    alike += b.alike;
  }
  CHECK(alike > 4);  // a symmetric layout loads many links alike
}

TEST_CASE("Link usage: the pieces of every op's run lie within the op's run") {
  const auto spec = four_nodes();
  const auto sim = analysis::simulate_step(spec);
  const auto& t = sim.timeline;
  REQUIRE(!t.pieces.empty());
  for (const auto& p : t.pieces) {
    CHECK(p.start <= p.end);
    CHECK(t.start[p.op] <= p.start);
    CHECK(p.end <= t.end[p.op]);
  }
}

TEST_CASE("Link usage: nothing is binned without a live fabric") {
  auto spec = four_nodes();
  spec.fidelity = workload::NetworkFidelity::analytic;
  const auto sim = analysis::simulate_step(spec);
  const auto u = analysis::link_usage(sim.build.graph, sim.timeline, *sim.topology, 20, 4);
  CHECK(!u.live);
  CHECK(u.busiest.empty());
  CHECK(u.utilisation[0].empty());
  CHECK(u.links[static_cast<int>(LinkGroup::nvlink)] == 64);
}

TEST_CASE("Topology names its vertices and links for people") {
  const auto spec = four_nodes();
  const hw::Topology topo(spec.cluster);
  CHECK(topo.link_name(0) == "gpu 0 -> nvswitch 0");
  bool leaf_spine = false;
  for (std::size_t l = 0; l < topo.links().size(); ++l)
    if (analysis::link_group(topo, static_cast<int>(l)) == LinkGroup::leaf_uplink) {
      CHECK(topo.link_name(static_cast<int>(l)).rfind("plane ", 0) == 0);
      CHECK(topo.link_name(static_cast<int>(l)).find(" -> plane ") != std::string::npos);
      leaf_spine = true;
    }
  CHECK(leaf_spine);
}
