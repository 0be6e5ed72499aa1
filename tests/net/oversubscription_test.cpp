// An oversubscribed fabric (leaf uplinks at 1/o of the leaf's NIC bandwidth) slows exactly the
// traffic that must leave a leaf, bundled or not: 64 nodes of 8 H800 on the multi-plane
// fat-tree, two leaves of 32 nodes per plane, one spine.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/config/load.hpp"
#include "sim/net/collective_plan.hpp"
#include "sim/net/collective_runner.hpp"
#include "sim/net/transfers.hpp"
#include "tests/net/cluster_fixture.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;
using test::collective_seconds;

namespace {

spec::ClusterSpec cluster(double oversubscription) {
  std::vector<config::Override> o{
      config::parse_override("nodes=64"),
      config::parse_override("fabric.oversubscription=" + std::to_string(oversubscription))};
  return config::load_cluster(test::source_path("topologies/h800-256x8-mpft.yaml"), o);
}

}  // namespace

TEST_CASE("A world all-to-all slows by what the leaf uplinks imply, bundled and unbundled alike") {
  const double S = 1 << 30;
  const hw::Topology free_fabric(cluster(1)), tight(cluster(4));
  // At 1:1 the NICs bind: each GPU sends (n - 1)/n of S at 50 GB/s.
  CHECK(collective_seconds(free_fabric, CollectiveOp::all_to_all, S, "world") ==
        doctest::Approx(511.0 / 512 * S / 50e9).epsilon(0.01));
  // At 4:1 half of every GPU's bytes leave its leaf: per plane, 32 GPUs x S/2 through uplinks of
  // 32 x 50 GB/s / 4 = 400 GB/s.
  const double closed = 32 * S / 2 / 400e9;
  const double bundled = collective_seconds(tight, CollectiveOp::all_to_all, S, "world");
  CHECK(bundled == doctest::Approx(closed).epsilon(0.01));
  CHECK(collective_seconds(tight, CollectiveOp::all_to_all, S, "world", false) ==
        doctest::Approx(bundled).epsilon(1e-6));
}

TEST_CASE("Only traffic that leaves a leaf notices oversubscription") {
  const hw::Topology free_fabric(cluster(1)), tight(cluster(4));
  // An expert all-to-all within one leaf: unchanged. One spanning two leaves: slower.
  const double ep = 4096.0 * 7168;
  CHECK(collective_seconds(tight, CollectiveOp::dispatch, ep, "nodes:0-31") ==
        collective_seconds(free_fabric, CollectiveOp::dispatch, ep, "nodes:0-31"));
  CHECK(collective_seconds(tight, CollectiveOp::dispatch, ep, "nodes:16-47") >
        1.02 * collective_seconds(free_fabric, CollectiveOp::dispatch, ep, "nodes:16-47"));
  // A ring all-reduce: its few leaf-crossing flows fit in the remaining uplinks.
  CHECK(collective_seconds(tight, CollectiveOp::all_reduce, 1 << 30, "world") ==
        collective_seconds(free_fabric, CollectiveOp::all_reduce, 1 << 30, "world"));
}

TEST_CASE("A bundle whose members climb to several spines spreads over them as its members do") {
  // 16-port switches: 8 nodes per leaf, 8 spines per plane; uplinks at 4:1.
  const std::vector<std::string> sets{"nodes=32", "fabric.switch_ports=16"};
  auto tight_sets = sets;
  tight_sets.push_back("fabric.oversubscription=4");
  const hw::Topology t(test::cluster("topologies/h800-2048x8-mpft.yaml", tight_sets));
  const hw::Topology free_fabric(test::cluster("topologies/h800-2048x8-mpft.yaml", sets));
  const double S = 64.0 * (1 << 20);
  // Two whole leaves: bundles spread; half a leaf on each side of a leaf boundary: they do not
  // (the members from either leaf climb to different spines), and are kept per spine index.
  for (const char* words : {"nodes:0-15", "nodes:4-11"}) {
    CAPTURE(words);
    const auto group = net::parse_group(words, t, "test");
    const bool whole_leaves = std::string(words) == "nodes:0-15";
    const net::CollectivePlan plan = net::plan_collective(CollectiveOp::all_to_all, S, group, t);
    const auto& transfers = plan.phases.front().transfers;
    const int k = t.spines_per_plane();
    int spread = 0;
    double members = 0.0;
    for (const net::Transfer& tr : transfers) {
      members += tr.multiplicity;
      if (!tr.spread) continue;
      ++spread;
      // Shares over the plane's spines: members per spine over the bundle's members.
      REQUIRE(tr.spread->size() == static_cast<std::size_t>(k));
      double sum = 0.0;
      for (double x : *tr.spread) {
        CHECK(x >= 0.0);
        CHECK(x * tr.multiplicity == doctest::Approx(std::round(x * tr.multiplicity)));
        sum += x;
      }
      CHECK(sum == doctest::Approx(1.0));
      CHECK(t.crosses_spine(tr.src, tr.dst));
      // The route carries each spine its share, up and down, at one path's latency.
      hw::Route own, spread_route;
      t.route(tr.src, tr.dst, own);
      net::route_of(t, tr, spread_route);
      CHECK(spread_route.latency_s == doctest::Approx(own.latency_s));
      double core = 0.0;
      for (std::size_t i = 0; i < spread_route.links.size(); ++i)
        if (t.links()[spread_route.links[i]].cls == hw::LinkClass::ib_core)
          core += spread_route.share_of(i);
      CHECK(core == doctest::Approx(2.0));
    }
    CHECK((spread > 0) == whole_leaves);
    const double n = static_cast<double>(group.size());
    CHECK(members == n * (n - 1));  // every pair counted once
    CHECK(static_cast<double>(transfers.size()) <=
          net::estimate_transfers(CollectiveOp::all_to_all, group, t));
    if (whole_leaves) CHECK(transfers.size() <= 2 * 8 * 8 * 16);  // per key, under a leaf or not
    // Bundled as unbundled, with the uplinks binding.
    const double bundled = collective_seconds(t, CollectiveOp::all_to_all, S, words);
    CHECK(collective_seconds(t, CollectiveOp::all_to_all, S, words, false) ==
          doctest::Approx(bundled).epsilon(1e-6));
    CHECK(bundled > 1.05 * collective_seconds(free_fabric, CollectiveOp::all_to_all, S, words));
  }
}
