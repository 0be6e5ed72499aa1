// Published nccl-tests figures (domain reference §8), one test per source: `stepsim collective`'s
// busbw on the matching cluster within ±10 %. Sizes are the large ones the sources quote peaks
// at (nccl-tests' busbw plateaus from about 1 GiB); where a source gives none, the size is said.
// Rows the model does not reproduce are left out here and reported with their numbers (an
// H100 RoCE cluster at 320 GB/s, NVIDIA/nccl#1221; an all-gather at 200 GB/s on 32 nodes,
// NVIDIA/nccl#1218): no published rate separates those setups from the ones below.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/net/cluster_fixture.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;
using test::run_planned;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

const hw::Topology& h100() {
  static const hw::Topology t(
      config::load_cluster(test::source_path("topologies/h100-256x8-rail.yaml"), {}));
  return t;
}

double busbw(const net::CollectiveResult& r) {
  return r.busbw / 1e9;
}

}  // namespace

TEST_CASE("NVIDIA/nccl-tests#212, NVIDIA/nccl#1442: H100 one node, ring and non-all-reduce ~370") {
  CHECK(busbw(run_planned(h100(), CollectiveOp::all_reduce, 8 * kGiB, "node:0", "ring")) ==
        doctest::Approx(370).epsilon(0.10));
  CHECK(busbw(run_planned(h100(), CollectiveOp::all_gather, 8 * kGiB, "node:0")) ==
        doctest::Approx(370).epsilon(0.10));
  CHECK(busbw(run_planned(h100(), CollectiveOp::reduce_scatter, 8 * kGiB, "node:0")) ==
        doctest::Approx(370).epsilon(0.10));
}

// The clusters' NVLS rates are derived from these two figures (topologies/*.yaml): the tests
// check that auto picks NVLS inside a node and that its model keeps busbw = 2(g-1)/(g+1) · rate.
TEST_CASE("NVIDIA/nccl-tests#212: H100 one node, NVLS all-reduce ~480") {
  const auto r = run_planned(h100(), CollectiveOp::all_reduce, 8 * kGiB, "node:0");
  CHECK(r.algorithm == "nvls");
  CHECK(busbw(r) == doctest::Approx(480).epsilon(0.10));
}

TEST_CASE("NVIDIA/nccl#1374: H800 one node, NVLS all-reduce 215") {
  const hw::Topology t(config::load_cluster(test::source_path("topologies/h800-1x8.yaml"), {}));
  const auto r = run_planned(t, CollectiveOp::all_reduce, 8 * kGiB, "world");
  CHECK(r.algorithm == "nvls");
  CHECK(busbw(r) == doctest::Approx(215).epsilon(0.10));
}

TEST_CASE("NVIDIA/nccl-tests#309, #319: H100 8 x NDR 400G, 2 nodes, ring all-reduce 380-396") {
  const double b =
      busbw(run_planned(h100(), CollectiveOp::all_reduce, 8 * kGiB, "nodes:0-1", "ring"));
  CHECK(b >= 0.9 * 380);
  CHECK(b <= 1.1 * 396);
}

TEST_CASE("NVIDIA/nccl-tests#309: H100 8 x NDR 400G, 4 nodes, all-reduce 365.84 (NVLS on or off)") {
  // 365.84 with the default NVLSTree, 368.76 with NVLS off: on 4 nodes NCCL's double binary
  // tree makes an inner node send 2·S/g over each NIC, as much as a ring's 2(n-1)/n · S/g, so
  // both sit at the NICs' rate; the tuner takes either.
  const auto r = run_planned(h100(), CollectiveOp::all_reduce, 8 * kGiB, "nodes:0-3");
  CHECK(busbw(r) == doctest::Approx(365.84).epsilon(0.10));
  CHECK(busbw(run_planned(h100(), CollectiveOp::all_reduce, 8 * kGiB, "nodes:0-3", "nvls-tree")) ==
        doctest::Approx(365.84).epsilon(0.10));
}

TEST_CASE("NVIDIA/nccl#1229: H100 reduce-scatter falls with node count, 360 to 260 (4-128 nodes)") {
  // Ring reduce-scatter (NCCL's only multi-node algorithm for it on 8-GPU nodes: PAT runs one GPU
  // per node, NVIDIA/nccl#1473): n-1 steps whose latency grows with the ranks. The source gives
  // no size; 4 GiB, within the 4-8 GiB such H100 runs quote (NVIDIA/nccl#1221).
  const int nodes[] = {4, 8, 16, 32, 64, 128};
  const double published[] = {360, 345, 320, 300, 280, 260};
  double previous = 1e9;
  for (int i = 0; i < 6; ++i) {
    CAPTURE(nodes[i]);
    const auto r = run_planned(h100(), CollectiveOp::reduce_scatter, 4 * kGiB,
                               "nodes:0-" + std::to_string(nodes[i] - 1));
    CHECK(r.algorithm == "ring");
    CHECK(busbw(r) == doctest::Approx(published[i]).epsilon(0.10));
    CHECK(busbw(r) < previous);
    previous = busbw(r);
  }
}

TEST_CASE("NVIDIA/nccl#1218: H100, 32 nodes, all-reduce 340 at 2 GB") {
  CHECK(busbw(run_planned(h100(), CollectiveOp::all_reduce, 2e9, "nodes:0-31")) ==
        doctest::Approx(340).epsilon(0.10));
}

TEST_CASE("NVIDIA/nccl#812: DGX A100 8 x HDR 200G, multi-node all-reduce 192") {
  const hw::Topology t(
      config::load_cluster(test::source_path("topologies/a100-64x8-dgx.yaml"), {}));
  CHECK(busbw(run_planned(t, CollectiveOp::all_reduce, 8 * kGiB, "nodes:0-1", "ring")) ==
        doctest::Approx(192).epsilon(0.10));
  CHECK(busbw(run_planned(t, CollectiveOp::all_reduce, 8 * kGiB, "nodes:0-3")) ==
        doctest::Approx(192).epsilon(0.10));
}

TEST_CASE("NVIDIA/nccl-tests#290: 46-48 GB/s per NDR NIC") {
  // One GPU to its peer on the next node, and a 2-node ring's traffic per NIC.
  const auto p = run_planned(h100(), CollectiveOp::p2p, 1 * kGiB, "0,8");
  CHECK(busbw(p) >= 46.0);
  CHECK(busbw(p) <= 48.0);
  const auto r = run_planned(h100(), CollectiveOp::all_reduce, 8 * kGiB, "nodes:0-1", "ring");
  const double per_nic = r.ib_bytes_per_gpu / r.time.seconds() / 1e9;
  CHECK(per_nic >= 0.9 * 46);
  CHECK(per_nic <= 1.1 * 48);
}
