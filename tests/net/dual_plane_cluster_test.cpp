// The shipped Alibaba HPN pod (topologies/h800-1920x8-hpn.yaml): its tiers as the sources give
// them, a world all-to-all bound by the ToR uplinks' 1.067 oversubscription, and a ToR failure
// that the dual-ToR design survives at half its hosts' NIC bandwidth.
#include <doctest/doctest.h>

#include "sim/engine/user_error.hpp"
#include "tests/net/cluster_fixture.hpp"

using namespace stepsim;
using net::CollectiveOp;
using test::collective_seconds;

TEST_CASE("HPN pod: 15 segments of 1,024 GPUs, 240 ToRs, 60 aggregation switches per plane") {
  const hw::Topology t(test::cluster("topologies/h800-1920x8-hpn.yaml"));
  CHECK(t.gpus() == 15360);
  CHECK(t.planes() == 2);
  CHECK(t.leaves_per_plane() == 120);  // 15 segments x 8 rails
  CHECK(t.spines_per_plane() == 60);
  // A ToR: 128 x 200G down, 60 x 400G up.
  double up = 0.0;
  for (const hw::Link& l : t.links())
    if (l.cls == hw::LinkClass::ib_core && t.kind_of(l.from) == hw::VertexKind::leaf)
      up += l.bandwidth;
  CHECK(up / 240 == doctest::Approx(128 * 47e9 / 2 / 1.067));
  CHECK(t.bisection_bandwidth() == doctest::Approx(up / 2));
}

TEST_CASE("HPN: a world all-to-all leaves the ToR uplinks slack at 1.067, bound at 2:1") {
  // Four segments of 16 nodes (switches cut to 16 NIC ports down).
  const auto hpn = [](const char* over) {
    return hw::Topology(test::cluster(
        "topologies/h800-1920x8-hpn.yaml",
        {"nodes=64", "fabric.switch_ports=32", std::string("fabric.oversubscription=") + over}));
  };
  const double S = 1 << 28, nic = 47e9;
  const double free_s = collective_seconds(hpn("1"), CollectiveOp::all_to_all, S, "world");
  // At 1:1 the NICs bind: each GPU sends 63/64 of S to other nodes, all of it over its NIC.
  CHECK(free_s == doctest::Approx(63.0 / 64 * S / nic).epsilon(0.03).scale(0));
  // 48 of 64 nodes lie in other segments: at 1.067 the uplinks carry 0.75 x 1.067 = 0.8 of what
  // the NICs do, and bind nothing (HPN's 15 segments: 14/15 x 1.067 = 0.996).
  CHECK(collective_seconds(hpn("1.067"), CollectiveOp::all_to_all, S, "world") ==
        doctest::Approx(free_s).epsilon(1e-6));
  // At 2:1 they bind: 0.75 of S through half the NIC bandwidth.
  CHECK(collective_seconds(hpn("2"), CollectiveOp::all_to_all, S, "world") ==
        doctest::Approx(48.0 / 64 * S / (nic / 2)).epsilon(0.03).scale(0));
}

TEST_CASE("HPN: a ToR down costs its hosts half their NIC bandwidth, not the job") {
  const auto hpn = [](std::vector<std::string> sets) {
    sets.push_back("nodes=32");
    sets.push_back("fabric.switch_ports=32");
    return hw::Topology(test::cluster("topologies/h800-1920x8-hpn.yaml", sets));
  };
  const double S = 1 << 28;
  const double ok = collective_seconds(hpn({}), CollectiveOp::all_to_all, S, "world", false);
  const double tor = collective_seconds(hpn({"faults=[{kind: switch_down, plane: 0, leaf: 0}]"}),
                                        CollectiveOp::all_to_all, S, "world", false);
  // The 16 hosts under the ToR send and receive rail 0 over one 200G port: twice as long.
  CHECK(tor == doctest::Approx(2 * ok).epsilon(0.03).scale(0));
  // The other plane's ToR too: the rail's NICs are cut off and NVLink forwards to other rails.
  const double both = collective_seconds(
      hpn({"faults=[{kind: switch_down, plane: 0, leaf: 0}, {kind: switch_down, plane: 1, leaf: "
           "0}]"}),
      CollectiveOp::all_to_all, S, "world", false);
  CHECK(both > tor);
}

TEST_CASE("HPN: a dual-plane fabric has two planes") {
  CHECK_THROWS_WITH_AS(test::cluster("topologies/h800-1920x8-hpn.yaml", {"fabric.planes=4"}),
                       doctest::Contains("a dual-plane fabric has two planes"), engine::UserError);
}
