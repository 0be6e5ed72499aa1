// DeepEP's normal kernels against DeepEP's published H800 table (domain reference §2; deepseek-ai/
// DeepEP docs/legacy.md): 4096 tokens per GPU, hidden 7168, top-8 of 256 experts with at most 4
// nodes per token, FP8 dispatch (7168 B + 56 float scales = 7392 B per token) and BF16 combine
// (14336 B). DeepEP's byte definition (tests/test_intranode.py, test_internode.py): inside one
// node the bytes a GPU receives, one copy per distinct destination GPU, its own included; across
// nodes the bytes a GPU sends over RDMA, one copy per distinct destination node, its own
// included ("logical" bandwidth). Each over the kernel's time, within ±10 %.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;

TEST_CASE("DeepEP dispatch and combine at EP 8/16/32/64 within 10 % of DeepEP's H800 table") {
  const hw::Topology t(
      config::load_cluster(test::source_path("topologies/h800-256x8-mpft.yaml"), {}));
  struct Row {
    int ep;
    double dispatch, combine;  // GB/s, DeepEP
  };
  const double tokens = 4096, fp8 = 7168 + 7168 / 128 * 4, bf16 = 7168 * 2;
  for (const Row row : {Row{8, 153, 158}, Row{16, 43, 43}, Row{32, 58, 57}, Row{64, 51, 50}}) {
    CAPTURE(row.ep);
    const int k = row.ep / 8;
    const auto group = net::parse_group("nodes:0-" + std::to_string(k - 1), t, "test");
    net::PlanOptions o;
    o.top_k = 8;
    o.max_nodes = std::min(k, 4);  // DeepEP's tests: num_topk_groups = min(nodes, 4)
    o.experts = 256;
    // Copies per token by DeepEP's definition: distinct GPUs inside a node, distinct nodes across.
    const double copies = k == 1 ? net::target_ranks_per_token(8, o.max_nodes, 1, 8, 256)
                                 : net::target_nodes_per_token(8, o.max_nodes, k, 256);
    for (const CollectiveOp op : {CollectiveOp::dispatch, CollectiveOp::combine}) {
      CAPTURE(net::to_string(op));
      const double per_token = op == CollectiveOp::dispatch ? fp8 : bf16;
      const double s = tokens * per_token;
      const auto r = net::run_collective(net::plan_collective(op, s, group, t, o), s,
                                         static_cast<int>(group.size()), t, hw::Fidelity::flow);
      CHECK(r.algorithm == "deepep");
      const double gbps = tokens * copies * per_token / r.time.seconds() / 1e9;
      CHECK(
          gbps ==
          doctest::Approx(op == CollectiveOp::dispatch ? row.dispatch : row.combine).epsilon(0.10));
    }
  }
}

TEST_CASE("DeepEP: notify before the data; fewer SMs than measured slow the NVLink copies") {
  const hw::Topology t(config::load_cluster(test::source_path("topologies/h800-1x8.yaml"), {}));
  const auto group = net::parse_group("world", t, "test");
  net::PlanOptions o;
  const double s = 4096.0 * 7392;
  const auto plan = net::plan_collective(CollectiveOp::dispatch, s, group, t, o);
  // Notify: two rounds over the group's longest route (NVLink inside one node) before the data.
  REQUIRE(plan.phases.size() == 1);
  CHECK(plan.setup_s == doctest::Approx(2 * 3.3e-6));
  const auto full = net::run_collective(plan, s, 8, t, hw::Fidelity::flow);
  o.comm_sms = 12;  // half the 24 SMs of DeepEP's measurement
  const auto half = net::run_collective(
      net::plan_collective(CollectiveOp::dispatch, s, group, t, o), s, 8, t, hw::Fidelity::flow);
  CHECK(half.time.seconds() / full.time.seconds() == doctest::Approx(2.0).epsilon(0.02));
  o.comm_sms = 32;  // more than measured: no faster than the measured rate
  const auto more = net::run_collective(
      net::plan_collective(CollectiveOp::dispatch, s, group, t, o), s, 8, t, hw::Fidelity::flow);
  CHECK(more.time == full.time);
}
