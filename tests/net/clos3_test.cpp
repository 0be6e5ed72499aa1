// A three-layer Clos (Meta's RoCE cluster, topologies/h100-3072x8-meta-roce.yaml, cut to 16 nodes
// in 4 pods of two racks): traffic between pods crosses the aggregation tier, whose capacity is
// the pod's NIC bandwidth / pod_oversubscription; a world all-to-all slows by exactly that.
#include <doctest/doctest.h>

#include "sim/net/collective_runner.hpp"
#include "tests/net/cluster_fixture.hpp"

using namespace stepsim;
using net::CollectiveOp;
using test::collective_seconds;

namespace {

spec::ClusterSpec clos3(int pod_oversubscription) {
  return test::cluster("topologies/h100-3072x8-meta-roce.yaml",
                       {"nodes=16", "fabric.leaves_per_pod=2",
                        "fabric.pod_oversubscription=" + std::to_string(pod_oversubscription)});
}

}  // namespace

TEST_CASE("clos3: racks, pods and an aggregation tier") {
  const hw::Topology t(clos3(7));
  CHECK(t.pods() == 4);
  CHECK(t.leaves_per_plane() == 8);
  CHECK(t.spines_per_plane() == 16);
  const auto v = t.vertex_counts();
  CHECK(v[static_cast<int>(hw::VertexKind::spine)] == 4 * 16);
  CHECK(v[static_cast<int>(hw::VertexKind::agg)] == 16);
  CHECK(t.route(0, 8).links.size() == 4);      // same rack: NIC, ToR, NIC
  CHECK(t.route(0, 8 * 2).links.size() == 6);  // same pod: through a cluster switch
  CHECK(t.route(0, 8 * 4).links.size() == 8);  // other pod: through the aggregation tier
  CHECK(t.route(0, 8 * 4).latency_s == doctest::Approx(2.8e-6 + 0.9e-6 + 0.9e-6));
  CHECK(t.longest_route_hops() == 8);
  // Bisection: half the pods' aggregation uplinks, 64 GPUs x 47 GB/s / 7.
  CHECK(t.bisection_bandwidth() == doctest::Approx(64 * 47e9 / 7));
}

TEST_CASE("clos3: a world all-to-all slows by what the aggregation tier's capacity implies") {
  const double S = 1 << 28, nic = 47e9;
  const int n = 128, pod = 32;
  const hw::Topology full(clos3(1)), tight(clos3(7));
  // At 1:1 the NICs bind: each GPU sends the (n - 8)/n of S bound for other nodes.
  const double free_s = collective_seconds(full, CollectiveOp::all_to_all, S, "world");
  CHECK(free_s == doctest::Approx((n - 8.0) / n * S / nic).epsilon(0.02).scale(0));
  // At 1:7 a pod's 32 GPUs send (n - pod)/n of S each through 32 x 47 GB/s / 7.
  const double closed = pod * S * (n - pod) / n / (pod * nic / 7);
  CHECK(collective_seconds(tight, CollectiveOp::all_to_all, S, "world", false) ==
        doctest::Approx(closed).epsilon(0.005).scale(0));
  // Bundled, the representatives crowd the first nodes' NICs a little (collective_plan.hpp): 4 %
  // slower on this small cluster.
  CHECK(collective_seconds(tight, CollectiveOp::all_to_all, S, "world") ==
        doctest::Approx(closed).epsilon(0.05).scale(0));
  // Inside one pod nothing changes.
  CHECK(collective_seconds(tight, CollectiveOp::all_to_all, S, "nodes:0-3") ==
        doctest::Approx(collective_seconds(full, CollectiveOp::all_to_all, S, "nodes:0-3"))
            .epsilon(1e-9));
}

TEST_CASE("ECMP hashing: flows collide on the rack uplinks that destination routing balances") {
  // One pod of 8 racks, full bisection: destination routing leaves the NICs the bottleneck; a
  // hash of each GPU pair puts some of a rack's 16 single-port uplinks above their share.
  const auto rack = [](const char* routing) {
    return test::cluster(
        "topologies/h100-3072x8-meta-roce.yaml",
        {"nodes=16", "fabric.leaves_per_pod=8", std::string("fabric.routing=") + routing});
  };
  const hw::Topology dest(rack("destination")), hashed(rack("ecmp_hash"));
  const double S = 1 << 28;
  const double d = collective_seconds(dest, CollectiveOp::all_to_all, S, "world");
  const double h = collective_seconds(hashed, CollectiveOp::all_to_all, S, "world");
  CHECK(d == doctest::Approx(120.0 / 128 * S / 47e9).epsilon(0.02).scale(0));
  CHECK(h > 1.05 * d);
  if (!test::kSanitized)  // deterministic (a third run; the release build checks it)
    CHECK(collective_seconds(hashed, CollectiveOp::all_to_all, S, "world") == h);
  // The hash picks among the same spines: hop counts and latencies do not change.
  CHECK(hashed.route(0, 8 * 5 + 3).links.size() == dest.route(0, 8 * 5 + 3).links.size());
}
