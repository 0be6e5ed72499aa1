// An oversubscribed fabric (leaf uplinks at 1/o of the leaf's NIC bandwidth) slows exactly the
// traffic that must leave a leaf, bundled or not: 64 nodes of 8 H800 on the multi-plane
// fat-tree, two leaves of 32 nodes per plane, one spine.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
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
