// The dual-plane, dual-ToR fabric (Alibaba HPN): every NIC has a port on each plane; a route is
// split evenly over the planes while both are up, and all of it takes the other plane when one
// is cut.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "sim/hw/flow_network.hpp"
#include "sim/hw/topology.hpp"
#include "tests/hw/flow_listeners.hpp"

using namespace stepsim;
using namespace stepsim::hw;
using namespace stepsim::spec;
using engine::Time;

namespace {

// 32 nodes x 8 on 32-port switches: 16 nodes per leaf, 2 leaves per rail, 16 leaves and 8
// spines per plane, two ports between a leaf and a spine.
ClusterSpec fabric(FabricKind kind) {
  ClusterSpec c;
  c.name = "test";
  c.nodes = 32;
  c.gpus_per_node = 8;
  c.nvlink = {160e9, 200e9, 3.3e-6};
  c.fabric.kind = kind;
  c.fabric.planes = kind == FabricKind::dual_plane ? 2 : 1;
  c.fabric.switch_ports = 32;
  c.fabric.nic = {50e9, 50e9, 2.8e-6};
  c.fabric.spine_latency_s = 0.9e-6;
  return c;
}

using Done = test::Deliveries;

// Every GPU of nodes 0-15 (leaf 0 of each rail) sends `bytes` to the same GPU index of node 16 +
// its node (leaf 1), all at once, flow by flow; returns the last delivery. Two flows per
// leaf-spine pair and plane.
Time shift(const Topology& t, double bytes) {
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Done d;
  for (int g = 0; g < 128; ++g) d.start(net, {g, g + 128, bytes}, static_cast<std::uint64_t>(g));
  sim.run();
  Time last;
  for (const auto& [tag, at] : d.at) last = std::max(last, at);
  return last;
}

}  // namespace

TEST_CASE("Dual plane: each NIC has a port on a leaf of each plane, at half its bandwidth") {
  const Topology t(fabric(FabricKind::dual_plane));
  const auto vc = t.vertex_counts();
  CHECK(t.planes() == 2);
  CHECK(t.leaves_per_plane() == 16);
  CHECK(t.spines_per_plane() == 8);
  CHECK(vc[static_cast<int>(VertexKind::nic)] == 256);
  CHECK(vc[static_cast<int>(VertexKind::leaf)] == 32);
  const auto lc = t.link_counts();
  CHECK(lc[static_cast<int>(LinkClass::ib_access)] == 2 * 2 * 256);
  for (const Link& l : t.links())
    if (l.cls == LinkClass::ib_access) CHECK(l.bandwidth == doctest::Approx(25e9));
  // The same leaf in both planes: plane 1's is plane 0's + leaves per plane.
  CHECK(t.on_leaf(9, t.leaf_of(9)));
  CHECK(t.on_leaf(9, t.leaf_of(9) + t.leaves_per_plane()));
  CHECK_FALSE(t.on_leaf(9, t.leaf_of(9) + 1));
  CHECK(t.bisection_bandwidth() == doctest::Approx(256 / 2.0 * 50e9));
}

TEST_CASE("Dual plane: a route forks at the NIC, half the bytes on each plane") {
  const Topology t(fabric(FabricKind::dual_plane));
  const Route r = t.route(0, 8 * 16);  // node 0 to node 16: rail 0, leaf 0 to leaf 1
  REQUIRE(r.share.size() == r.links.size());
  int halves = 0;
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    const LinkClass c = t.links()[r.links[i]].cls;
    CHECK(r.share[i] == (c == LinkClass::nic ? 1.0 : 0.5));
    halves += r.share[i] == 0.5;
  }
  CHECK(halves == 8);  // access, core up, core down, access: on each plane
  // One plane's latency: NIC 2.8 us + spine 0.9 us.
  CHECK(r.latency_s == doctest::Approx(3.7e-6));
  // Each port carries half: the flow gets the whole NIC.
  CHECK(t.bottleneck(r).first == doctest::Approx(50e9));
  // PXN's NVLink hop to the destination's rail, then one plane's GPU-NIC-leaf-spine-leaf-NIC-GPU.
  CHECK(t.longest_route_hops() == 8);
  CHECK(t.route(0, 1).share.empty());  // inside the node: NVLink alone
}

TEST_CASE("Dual plane: a ToR down sends all of its hosts' traffic over the other plane") {
  ClusterSpec c = fabric(FabricKind::dual_plane);
  FaultSpec tor;
  tor.kind = FaultKind::switch_down;
  tor.plane = 0;
  tor.leaf = 0;  // rail 0, nodes 0-15
  c.faults = {tor};
  const Topology t(c);
  const Route r = t.route(0, 8 * 16);
  CHECK(r.share.empty());
  for (int l : r.links)
    if (t.links()[l].cls != LinkClass::nic) CHECK(t.kind_of(t.links()[l].from) != VertexKind::gpu);
  CHECK(t.bottleneck(r).first == doctest::Approx(25e9));  // one port left
  // Other rails keep both planes.
  CHECK(t.route(1, 8 * 16 + 1).share.size() == t.route(1, 8 * 16 + 1).links.size());
  // Both ToRs of the rail down: the GPU's NIC is cut off and NVLink forwarding takes over.
  FaultSpec other = tor;
  other.plane = 1;
  c.faults.push_back(other);
  const Topology both(c);
  CHECK(both.links()[both.route(0, 8 * 16).links.front()].cls == LinkClass::nvlink);
}

TEST_CASE("Dual plane: with both planes up it times like one plane of twice the capacity") {
  // Under an even split the two planes carry the same load; each link's constraint
  // sum(x/2) <= c is sum(x) <= 2c, so the max-min rates equal one plane's with every fabric
  // link doubled: a rail fat-tree with the same (whole) NICs.
  const double bytes = 1e9;
  const Time dual = shift(Topology(fabric(FabricKind::dual_plane)), bytes);
  const Time rail = shift(Topology(fabric(FabricKind::rail_fat_tree)), bytes);
  CHECK(dual == rail);
  // 1 GB at the NIC's 50 GB/s: 20 ms after the 3.7 us of latency.
  CHECK(dual.seconds() == doctest::Approx(0.02 + 3.7e-6).epsilon(1e-6));
  // Oversubscribed leaves: the uplinks bind alike.
  ClusterSpec d = fabric(FabricKind::dual_plane), s = fabric(FabricKind::rail_fat_tree);
  d.fabric.oversubscription = s.fabric.oversubscription = 2.0;
  CHECK(shift(Topology(d), bytes) == shift(Topology(s), bytes));
  CHECK(shift(Topology(d), bytes).seconds() == doctest::Approx(0.04 + 3.7e-6).epsilon(1e-6));
}

TEST_CASE("Dual plane: a ToR down halves its hosts' NIC bandwidth, the others keep theirs") {
  ClusterSpec c = fabric(FabricKind::dual_plane);
  FaultSpec tor;
  tor.kind = FaultKind::switch_down;
  tor.plane = 1;
  tor.leaf = 1;  // rail 0's second leaf: nodes 16-31, where GPU 0's flow lands
  c.faults = {tor};
  engine::Simulator sim;
  const Topology t(c);
  FlowNetwork net(sim, t, Fidelity::flow);
  Done d;
  d.start(net, {0, 128, 1e9}, 0);  // into node 16's rail-0 NIC: one port left
  d.start(net, {1, 129, 1e9}, 1);  // rail 1: both ports
  sim.run();
  CHECK(d.at[0].seconds() == doctest::Approx(0.04 + 3.7e-6).epsilon(1e-6));
  CHECK(d.at[1].seconds() == doctest::Approx(0.02 + 3.7e-6).epsilon(1e-6));
}
