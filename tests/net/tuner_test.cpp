// The tuner's choice (sim/net/tuner.hpp): by size, ranks and what the cluster declares, and the
// closed form it chooses by against the simulated time.
#include "sim/net/tuner.hpp"
#include "tests/net/cluster_fixture.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;

using test::cluster;
using test::run_planned;

TEST_CASE("Small messages take the low-latency protocol, large ones Simple; trees at scale") {
  const hw::Topology t(cluster("topologies/h800-256x8-mpft.yaml"));
  const auto small = run_planned(t, CollectiveOp::all_reduce, 64 * 1024.0, "world");
  CHECK(small.protocol == "ll");
  CHECK(small.algorithm == "tree");  // 2048 ranks: a ring's 4094 steps cost far more latency
  const auto large = run_planned(t, CollectiveOp::all_reduce, 1 << 30, "world");
  CHECK(large.protocol == "simple");
  CHECK(large.algorithm == "nvls-tree");
  CHECK(large.busbw >= 150e9);  // the floor; NVLink's 8/7 x 160 = 183 bounds a tree
  // The estimate the tuner chose by is close to what the flow network then measures.
  CHECK(large.predicted_s == doctest::Approx(large.time.seconds()).epsilon(0.05));
  // Reduce-scatter and all-gather have rings alone among NCCL's algorithms on 8-GPU nodes.
  CHECK(run_planned(t, CollectiveOp::reduce_scatter, 1 << 30, "world").algorithm == "ring");
}

TEST_CASE("A cluster that declares SHARP gets the in-network reduction where it is faster") {
  // DGX A100 without NVLS: a tree sends 2·S/g per NIC on an inner node, SHARP S/g.
  const hw::Topology plain(cluster("topologies/a100-64x8-dgx.yaml"));
  const hw::Topology sharp(cluster("topologies/a100-64x8-dgx.yaml", {"fabric.sharp=true"}));
  const auto a = run_planned(plain, CollectiveOp::all_reduce, 1 << 30, "nodes:0-15");
  const auto b = run_planned(sharp, CollectiveOp::all_reduce, 1 << 30, "nodes:0-15");
  CHECK(a.algorithm != "sharp");
  CHECK(b.algorithm == "sharp");
  CHECK(b.time.seconds() < 0.75 * a.time.seconds());
  // Without NVLS the NVLS algorithms are never candidates.
  CHECK(run_planned(plain, CollectiveOp::all_reduce, 1 << 30, "node:0").algorithm == "ring");
}

TEST_CASE("Fixed choices are kept; impossible ones are errors") {
  const auto c = cluster("topologies/h800-4x8.yaml");
  net::PlanOptions o;
  o.algorithm = "ring";
  o.protocol = "ll128";
  o.channels = 3;
  const net::Choice ch = net::tune(CollectiveOp::all_reduce, 1 << 30, {32, 8}, true, c, o);
  CHECK(ch.algorithm->name == "ring");
  CHECK(ch.protocol == net::Protocol::ll128);
  CHECK(ch.channels == 3);
  o.algorithm = "nvls";  // one node only
  CHECK_THROWS_AS(net::tune(CollectiveOp::all_reduce, 1 << 30, {32, 8}, true, c, o),
                  engine::UserError);
  o.algorithm = "nvls-tree";  // Simple only
  CHECK_THROWS_AS(net::tune(CollectiveOp::all_reduce, 1 << 30, {32, 8}, true, c, o),
                  engine::UserError);
  o.algorithm = "auto";
  o.protocol = "fast";
  CHECK_THROWS_AS(net::tune(CollectiveOp::all_reduce, 1 << 30, {32, 8}, true, c, o),
                  engine::UserError);
}
