#include "sim/analysis/link_usage.hpp"

#include <doctest/doctest.h>

#include <map>

#include "sim/run/pipeline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using hw::LinkGroup;

namespace {

// Four nodes of eight GPUs: tensor parallelism inside a node, pipeline and data parallelism
// across nodes, so that every link group carries traffic.
spec::ScenarioSpec four_nodes() {
  auto spec = test::pipelined_scenario();
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
  const auto sim = run::simulate_step(spec);
  const auto& g = sim.build.graph;
  const auto u = analysis::link_usage(g, sim.timeline, *sim.topology, 50, 5);
  REQUIRE(u.live);
  CHECK(u.bin_s == doctest::Approx(sim.metrics.step_s / 50));
  // A byte a GPU sends over its NVLink port enters another GPU by its port: two NVLink links. A
  // byte it sends by its NIC crosses its NIC port, the NIC's cable to the leaf, and the same two
  // at the receiver: four links of the NIC group.
  double nvlink = 0.0, ib = 0.0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    nvlink += g.facts[i].nvlink_bytes * g.gpus_of(g.ops[i].device);
    ib += g.facts[i].ib_bytes * g.gpus_of(g.ops[i].device);
  }
  REQUIRE(ib > 0.0);
  CHECK(group_bytes(u, LinkGroup::nvlink) == doctest::Approx(2.0 * nvlink).epsilon(1e-9));
  CHECK(group_bytes(u, LinkGroup::nic) == doctest::Approx(4.0 * ib).epsilon(1e-9));
  CHECK(group_bytes(u, LinkGroup::leaf_uplink) > 0.0);
  CHECK(group_bytes(u, LinkGroup::leaf_uplink) ==
        doctest::Approx(group_bytes(u, LinkGroup::spine_downlink)));
  // The bins add up to the totals, and the mean is the totals over capacity and time.
  for (int k = 0; k < hw::kLinkGroups; ++k) {
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
  const auto sim = run::simulate_step(spec);
  const auto u = analysis::link_usage(sim.build.graph, sim.timeline, *sim.topology, 20, 4);
  REQUIRE(u.busiest.size() == 4);
  int alike = 0;
  for (std::size_t i = 0; i < u.busiest.size(); ++i) {
    const auto& b = u.busiest[i];
    CHECK(!b.name.empty());
    CHECK(b.name == sim.topology->link_name(b.link));
    CHECK(b.group == hw::link_group(*sim.topology, b.link));
    CHECK(b.utilisation ==
          doctest::Approx(b.bytes / (sim.topology->links()[b.link].bandwidth * u.step_s)));
    if (i > 0) CHECK(u.busiest[i - 1].utilisation >= b.utilisation);
    alike += b.alike;
  }
  CHECK(alike > 4);  // a symmetric layout loads many links alike
  // Alike links are one entry: no two entries of a group carry the same bytes.
  const auto all = analysis::link_usage(sim.build.graph, sim.timeline, *sim.topology, 20, 1000);
  for (std::size_t i = 0; i < all.busiest.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (all.busiest[i].group == all.busiest[j].group)
        CHECK(all.busiest[i].bytes != doctest::Approx(all.busiest[j].bytes).epsilon(1e-12));
}

TEST_CASE("Link usage: every op on the fabric runs its pieces in order, end to end") {
  // Data-parallel groups of 8 GPUs (tp 2 x pp 2 on 32): a hierarchical all-reduce runs in
  // pieces (NVLink, the NICs, NVLink again).
  auto spec = four_nodes();
  spec.parallel.tp = 2;
  spec.collectives[static_cast<int>(spec::TrafficKind::dp)].algorithm = "hierarchical";
  const auto sim = run::simulate_step(spec);
  const auto& g = sim.build.graph;
  const auto& t = sim.timeline;
  REQUIRE(!t.pieces.empty());
  std::map<int, std::vector<exec::PieceRun>> by_op;
  for (const auto& p : t.pieces) by_op[p.op].push_back(p);
  int several = 0;
  for (const auto& op_pieces : by_op) {
    const int op = op_pieces.first;  // a plain variable: doctest's INFO takes it in a lambda
    const auto& pieces = op_pieces.second;
    INFO("op ", g.name(op));
    REQUIRE(pieces.size() == g.shapes[g.ops[op].load].size());
    several += pieces.size() > 1;
    CHECK(pieces.front().start == t.start[op]);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      CHECK(pieces[k].piece == static_cast<int>(k));
      CHECK(pieces[k].start <= pieces[k].end);
      if (k > 0) CHECK(pieces[k].start == pieces[k - 1].end);
    }
    // A coupled collective ends with its last copy; the others end with their last piece.
    if (g.ops[op].couple < 0)
      CHECK(pieces.back().end == t.end[op]);
    else
      CHECK(pieces.back().end <= t.end[op]);
  }
  CHECK(several > 0);  // hierarchical collectives run in pieces
}

TEST_CASE("Link usage: a piece's bytes land in the bins it ran in, in proportion") {
  // By hand: one op whose first half (1 s to 2 s) moves X bytes over both NVLink links of GPU 0
  // (one class), its second half nothing; another moving Y over GPU 1's up link from 1.5 s to
  // 2.5 s; a 4 s step in 4 bins.
  const auto spec = four_nodes();
  const hw::Topology topo(spec.cluster);
  const double X = 8e9, Y = 2e9, C = spec.cluster.nvlink.bandwidth;
  exec::StepGraph g;
  g.devices = 1;
  g.link_capacity = {C, C};
  g.link_class_of.assign(topo.links().size(), -1);
  g.link_class_of[0] = 0;  // gpu 0 -> nvswitch 0
  g.link_class_of[1] = 0;  // nvswitch 0 -> gpu 0
  g.link_class_of[2] = 1;  // gpu 1 -> nvswitch 0
  REQUIRE(topo.link_name(2) == "gpu 1 -> nvswitch 0");
  g.loads = {{{0, X}}, {{1, Y}}};
  g.shapes = {{{0.5, 0}, {1.0, -1}}, {{1.0, 1}}};
  exec::StepOp a, b;
  a.kind = b.kind = workload::StepOpKind::tp_reduce;
  a.load = 0;
  b.load = 1;
  g.ops = {a, b};
  exec::StepTimeline t;
  using engine::Time;
  t.start = {Time::from_seconds(1.0), Time::from_seconds(1.5)};
  t.end = {Time::from_seconds(3.0), Time::from_seconds(2.5)};
  t.step = Time::from_seconds(4.0);
  t.pieces = {{0, 0, t.start[0], Time::from_seconds(2.0)},
              {1, 0, t.start[1], t.end[1]},
              {0, 1, Time::from_seconds(2.0), t.end[0]}};
  const auto u = analysis::link_usage(g, t, topo, 4, 10);
  REQUIRE(u.live);
  const double cap = u.capacity[static_cast<int>(LinkGroup::nvlink)];
  CHECK(cap == doctest::Approx(64 * C));
  const auto& nvl = u.utilisation[static_cast<int>(LinkGroup::nvlink)];
  REQUIRE(nvl.size() == 4);
  CHECK(nvl[0] == 0.0);
  CHECK(nvl[1] == doctest::Approx((2 * X + Y / 2) / cap));
  CHECK(nvl[2] == doctest::Approx((Y / 2) / cap));
  CHECK(nvl[3] == 0.0);
  CHECK(u.peak(LinkGroup::nvlink) == doctest::Approx(nvl[1]));
  CHECK(u.mean(LinkGroup::nvlink) == doctest::Approx((2 * X + Y) / (cap * 4.0)));
  CHECK(u.bytes[static_cast<int>(LinkGroup::nic)] == 0.0);
  // The busiest: GPU 0's two links, each X over 4 s; then GPU 1's up link.
  REQUIRE(u.busiest.size() == 2);
  CHECK(u.busiest[0].name == "gpu 0 -> nvswitch 0");
  CHECK(u.busiest[0].alike == 2);
  CHECK(u.busiest[0].utilisation == doctest::Approx(X / (C * 4.0)));
  CHECK(u.busiest[1].name == "gpu 1 -> nvswitch 0");
  CHECK(u.busiest[1].alike == 1);
  CHECK(u.busiest[1].bytes == doctest::Approx(Y));
}

TEST_CASE("Link usage: nothing is binned without a live fabric") {
  auto spec = four_nodes();
  spec.fidelity = spec::NetworkFidelity::analytic;
  const auto sim = run::simulate_step(spec);
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
    if (hw::link_group(topo, static_cast<int>(l)) == LinkGroup::leaf_uplink) {
      CHECK(topo.link_name(static_cast<int>(l)).rfind("plane ", 0) == 0);
      CHECK(topo.link_name(static_cast<int>(l)).find(" -> plane ") != std::string::npos);
      leaf_spine = true;
    }
  CHECK(leaf_spine);
}
