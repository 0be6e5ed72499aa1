#include "sim/hw/topology.hpp"

#include <doctest/doctest.h>

#include <set>

#include "sim/engine/user_error.hpp"

using namespace stepsim::hw;
using namespace stepsim::spec;

namespace {

ClusterSpec cluster(int nodes, FabricKind kind = FabricKind::multi_plane_fat_tree, int ports = 64) {
  ClusterSpec c;
  c.name = "test";
  c.nodes = nodes;
  c.gpus_per_node = 8;
  c.nvlink = {160e9, 200e9, 3.3e-6};
  c.fabric.kind = nodes > 1 ? kind : FabricKind::none;
  c.fabric.planes = kind == FabricKind::multi_plane_fat_tree ? 8 : 1;
  c.fabric.switch_ports = ports;
  c.fabric.nic = {50e9, 50e9, 2.8e-6};
  c.fabric.spine_latency_s = 0.9e-6;
  return c;
}

int count(const Topology& t, VertexKind k) {
  return t.vertex_counts()[static_cast<int>(k)];
}

}  // namespace

TEST_CASE("2048 nodes x 8 GPUs on 8 planes of 64-port switches: 16,384 NICs, 768 switches") {
  const Topology t(cluster(2048));
  CHECK(t.gpus() == 16384);
  CHECK(count(t, VertexKind::nic) == 16384);
  CHECK(count(t, VertexKind::nvswitch) == 2048);
  CHECK(count(t, VertexKind::leaf) == 512);
  CHECK(count(t, VertexKind::spine) == 256);
  CHECK(count(t, VertexKind::leaf) + count(t, VertexKind::spine) == 768);
  // Links, one per direction: NVLink and PCIe 2 per GPU, access 2 per NIC, core 2 per leaf-spine
  // pair.
  const auto lc = t.link_counts();
  CHECK(lc[static_cast<int>(LinkClass::nvlink)] == 2 * 16384);
  CHECK(lc[static_cast<int>(LinkClass::ib_access)] == 2 * 16384);
  CHECK(lc[static_cast<int>(LinkClass::ib_core)] == 2 * 8 * 64 * 32);
  CHECK(t.bisection_bandwidth() == doctest::Approx(16384 / 2.0 * 50e9));
}

TEST_CASE("Routes: hop counts, planes and PXN") {
  const Topology t(cluster(64));  // 2 leaves per plane
  CHECK(t.route(3, 3).links.empty());
  CHECK(t.route(0, 5).links.size() == 2);       // NVLink through the switch
  CHECK(t.route(0, 8).links.size() == 4);       // same plane, same leaf: GPU-NIC-leaf-NIC-GPU
  CHECK(t.route(0, 8 * 40).links.size() == 6);  // node 40 is under the plane's second leaf
  const Route pxn = t.route(0, 8 * 40 + 3);     // other plane, other leaf
  REQUIRE(pxn.links.size() == 8);
  CHECK(t.links()[pxn.links[0]].cls == LinkClass::nvlink);  // first onto GPU 3 of node 0
  CHECK(t.links()[pxn.links[1]].to == t.links()[t.route(3, 8 * 40 + 3).links[0]].from);
  CHECK(t.longest_route_hops() == 8);
  // DeepSeek's 64-byte latencies: 2.8 us within a leaf, 3.7 us across leaves; NVLink 3.3 us.
  CHECK(t.route(0, 8).latency_s == doctest::Approx(2.8e-6));
  CHECK(t.route(0, 8 * 40).latency_s == doctest::Approx(3.7e-6));
  CHECK(t.route(0, 1).latency_s == doctest::Approx(3.3e-6));
}

TEST_CASE("ECMP is deterministic and spreads over spines") {
  const Topology t(cluster(256));  // 8 leaves and 4 spines per plane
  CHECK(t.spines_per_plane() == 4);
  std::set<int> spines_used;
  for (int n = 32; n < 256; ++n) {
    const Route a = t.route(0, n * 8), b = t.route(0, n * 8);
    CHECK(a.links == b.links);
    spines_used.insert(t.links()[a.links[2]].to);
  }
  CHECK(spines_used.size() == 4);
}

TEST_CASE("A failed NIC is routed around over NVLink; a node cut off is a user error") {
  ClusterSpec c = cluster(2);
  c.faults.push_back({FaultKind::nic_down, 1, 3});
  const Topology t(c);
  const Route r = t.route(3, 8 + 3);  // plane 3 NIC of the destination is down
  CHECK_FALSE(r.links.empty());
  for (int l : r.links) CHECK(t.links()[l].up);
  for (int nic = 0; nic < 8; ++nic) c.faults.push_back({FaultKind::nic_down, 1, nic});
  const Topology cut(c);
  CHECK_THROWS_AS(cut.route(0, 8), stepsim::engine::UserError);
  CHECK(cut.route(8, 9).links.size() == 2);  // inside the node still fine
}

TEST_CASE("A switch down: routes avoid it; a node down is unreachable") {
  ClusterSpec c = cluster(256);  // 8 leaves and 4 spines per plane
  FaultSpec spine;
  spine.kind = FaultKind::switch_down;
  spine.plane = 0;
  spine.spine = 1;
  c.faults.push_back(spine);
  FaultSpec leaf;
  leaf.kind = FaultKind::switch_down;
  leaf.plane = 2;
  leaf.leaf = 0;
  c.faults.push_back(leaf);
  FaultSpec node;
  node.kind = FaultKind::node_down;
  node.node = 200;
  c.faults.push_back(node);
  const Topology t(c);
  int core_down = 0;
  for (const Link& l : t.links()) core_down += !l.up && l.cls == LinkClass::ib_core;
  // The spine's 8 leaf pairs and the leaf's 4 spine pairs, both directions.
  CHECK(core_down == 2 * (8 + 4));
  for (int n = 32; n < 200; ++n) {
    const Route r = t.route(0, n * 8);  // plane 0, across leaves
    for (int l : r.links) CHECK(t.links()[l].up);
    CHECK(r.links.size() == 6);  // another spine, same hop count
  }
  // Node 1's plane-2 NIC hangs off the dead leaf: it leaves by another plane over NVLink.
  const Route around = t.route(8 + 2, 8 * 100 + 2);
  for (int l : around.links) CHECK(t.links()[l].up);
  CHECK(around.links.size() > 6);
  CHECK_THROWS_AS(t.route(0, 200 * 8 + 1), Unreachable);
  CHECK_THROWS_AS(t.route(200 * 8, 200 * 8 + 1), Unreachable);
}

TEST_CASE("Degraded links and stragglers") {
  ClusterSpec c = cluster(2);
  FaultSpec d;
  d.kind = FaultKind::nic_degrade;
  d.node = 0;
  d.nic = 2;
  d.factor = 0.5;
  c.faults.push_back(d);
  FaultSpec s;
  s.kind = FaultKind::straggler;
  s.gpu = 5;
  s.factor = 1.2;
  c.faults.push_back(s);
  const Topology t(c);
  CHECK(t.bottleneck(t.route(2, 10)).first == doctest::Approx(25e9));
  CHECK(t.bottleneck(t.route(1, 9)).first == doctest::Approx(50e9));
  CHECK(t.slowdown_of(5) == 1.2);
  CHECK(t.slowdown_of(4) == 1.0);
}

TEST_CASE("Rail-optimized fat-tree: one plane, rails on their own leaves") {
  const Topology t(cluster(256, FabricKind::rail_fat_tree));
  CHECK(t.planes() == 1);
  CHECK(count(t, VertexKind::leaf) == 64);
  CHECK(count(t, VertexKind::spine) == 32);
  CHECK(t.route(0, 8).links.size() == 4);  // same rail, same leaf
  CHECK(t.route(0, 9).links.size() == 6);  // other rail: through a spine, no PXN
}

TEST_CASE("Oversubscription divides the leaf uplinks") {
  ClusterSpec c = cluster(64);
  c.fabric.oversubscription = 2.0;
  const Topology t(c);
  // 2 leaves and 1 spine per plane: each leaf's 32 uplinks aggregate into one link, halved.
  CHECK(t.spines_per_plane() == 1);
  for (const Link& l : t.links())
    if (l.cls == LinkClass::ib_core) CHECK(l.bandwidth == doctest::Approx(50e9 * 32 / 2.0));
}

TEST_CASE("Links in series: a route crossing a NIC's link crosses the one in series with it next") {
  auto check = [](const ClusterSpec& c) {
    const Topology t(c);
    // Routes spread over every spine too (bundles), where the fabric has spines.
    std::vector<double> spread(static_cast<std::size_t>(t.spines_per_plane()),
                               t.spines_per_plane() > 0 ? 1.0 / t.spines_per_plane() : 0.0);
    std::vector<int> before(t.links().size(), -1);  // the link every route reaches it from
    int pairs = 0, broken = 0;
    for (std::size_t l = 0; l < t.links().size(); ++l)
      if (const int next = t.series_next(static_cast<int>(l)); next >= 0) {
        CHECK(before[next] == -1);
        before[next] = static_cast<int>(l);
        ++pairs;
      }
    Route r;
    for (int a = 0; a < t.gpus(); ++a)
      for (int b = 0; b < 2 * t.gpus(); ++b) {
        if (a == b % t.gpus()) continue;
        if (b < t.gpus())
          t.route(a, b, r);
        else
          t.route(a, b % t.gpus(), spread, r);
        for (std::size_t i = 0; i < r.links.size(); ++i) {
          const int next = t.series_next(r.links[i]), prev = before[r.links[i]];
          broken += t.series_prev(r.links[i]) != prev;
          broken += next >= 0 && (i + 1 == r.links.size() || r.links[i + 1] != next ||
                                  r.share_of(i) != r.share_of(i + 1));
          broken += prev >= 0 && (i == 0 || r.links[i - 1] != prev);
        }
      }
    CHECK(broken == 0);
    return pairs;
  };
  ClusterSpec plain = cluster(16, FabricKind::multi_plane_fat_tree, 8);
  CHECK(check(plain) == 2 * plain.world_size());
  // Routes searched around a NIC down and a spine down still keep the pairs together.
  ClusterSpec faulted = plain;
  faulted.faults.push_back({FaultKind::nic_down, 1, 3});
  FaultSpec spine;
  spine.kind = FaultKind::switch_down;
  spine.plane = 0;
  spine.spine = 1;
  faulted.faults.push_back(spine);
  faulted.faults.push_back({FaultKind::nic_degrade, 2, 5, -1, -1, -1, -1, 0.4});
  CHECK(check(faulted) == 2 * faulted.world_size());
  CHECK(check(cluster(16, FabricKind::rail_fat_tree, 8)) == 2 * 16 * 8);
  ClusterSpec clos3 = cluster(16, FabricKind::clos3, 8);  // 2 pods of 2 leaves
  clos3.fabric.planes = 1;
  clos3.fabric.leaves_per_pod = 2;
  clos3.fabric.pod_oversubscription = 2;
  CHECK(check(clos3) == 2 * 16 * 8);
  // A NIC of two ports (two leaves) has no link in series with its GPU's.
  ClusterSpec dual = cluster(16, FabricKind::dual_plane, 8);
  dual.fabric.planes = 2;
  CHECK(check(dual) == 0);
}
