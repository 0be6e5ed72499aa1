#include <doctest/doctest.h>

#include <cmath>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using engine::Time;
using hw::Fidelity;
using net::CollectiveOp;

namespace {

hw::ClusterSpec cluster(const char* file, const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> o;
  for (const auto& s : sets) o.push_back(config::parse_override(s));
  return config::load_cluster(test::source_path(file), o);
}

net::CollectiveResult run(const hw::Topology& t, CollectiveOp op, double bytes,
                          const std::string& group, Fidelity f, net::PlanOptions o = {}) {
  const auto g = net::parse_group(group, t, "test");
  return net::run_collective(net::plan_collective(op, bytes, g, t, o), bytes,
                             static_cast<int>(g.size()), t, f);
}

}  // namespace

TEST_CASE("Analytic ring collectives equal the alpha-beta formulas within 1 ps per step") {
  const hw::Topology t(cluster("topologies/h800-1x8.yaml"));
  const double S = 1 << 30, n = 8, alpha = 3.3e-6, beta = 160e9;
  net::PlanOptions ring;
  ring.algorithm = "ring";
  struct Case {
    CollectiveOp op;
    double steps;
  };
  for (const Case c :
       {Case{CollectiveOp::all_reduce, 2 * (n - 1)}, Case{CollectiveOp::all_gather, n - 1},
        Case{CollectiveOp::reduce_scatter, n - 1}}) {
    CAPTURE(net::to_string(c.op));
    const auto r = run(t, c.op, S, "world", Fidelity::analytic, ring);
    const double formula = c.steps * (alpha + S / n / beta);
    CHECK(std::abs(r.time.seconds() - formula) <= c.steps * 1e-12);
  }
}

TEST_CASE("Hierarchical all-reduce is the sum of its phases") {
  const hw::Topology t(cluster("topologies/h800-4x8.yaml"));
  const double S = 256.0 * (1 << 20);
  const auto r = run(t, CollectiveOp::all_reduce, S, "world", Fidelity::analytic);
  CHECK(r.algorithm == "hierarchical");
  REQUIRE(r.phases.size() == 3);
  // Intra-node ring steps: α_nvlink + (S/8)/160 GB/s, 7 of them, twice.
  const double intra = 3.3e-6 + S / 8 / 160e9;
  // Inter-node ring over 4 nodes of one leaf: α_ib + (S/32)/50 GB/s, 2·3 steps.
  const double inter = 2.8e-6 + S / 32 / 50e9;
  CHECK(r.phases[0].repeat == 7);
  CHECK(r.phases[1].repeat == 6);
  CHECK(r.phases[0].step().seconds() == doctest::Approx(intra).epsilon(1e-9));
  CHECK(r.phases[1].step().seconds() == doctest::Approx(inter).epsilon(1e-9));
  // The whole: two intra-node rings of 7 steps and the inter-node ring of 6, one after another.
  CHECK(r.time.seconds() == doctest::Approx(2 * 7 * intra + 6 * inter).epsilon(1e-9));
  // Each phase's busbw is what a GPU sends in it over its time: (g-1)/g·S over NVLink in the
  // intra-node phases, 2(k-1)/k·S/g over the NIC in the inter-node one.
  CHECK(r.phases[0].sent_per_gpu == doctest::Approx(7.0 / 8 * S));
  CHECK(r.phases[1].sent_per_gpu == doctest::Approx(2.0 * 3 / 4 * S / 8));
  CHECK(r.phases[0].busbw == doctest::Approx(r.phases[0].sent_per_gpu / (7 * intra)));
  CHECK(r.phases[1].busbw == doctest::Approx(r.phases[1].sent_per_gpu / (6 * inter)));
  CHECK(r.phases[0].bottleneck == hw::LinkClass::nvlink);
  CHECK(r.phases[1].bottleneck == hw::LinkClass::nic);
  // At 16 GiB latency fades: the NVLink phases run near 160 GB/s, the inter-node one near the
  // NIC's 50.
  const auto big = run(t, CollectiveOp::all_reduce, 16.0 * (1 << 30), "world", Fidelity::flow);
  CHECK(big.phases[0].busbw == doctest::Approx(160e9).epsilon(0.01));
  CHECK(big.phases[1].busbw == doctest::Approx(50e9).epsilon(0.01));
}

TEST_CASE("Broadcast: a pipelined chain whose chunk count minimizes (n-2+C)(alpha + S/(C beta))") {
  const hw::Topology t(cluster("topologies/h800-1x8.yaml"));
  const double S = 1 << 30, n = 8, alpha = 3.3e-6, beta = 160e9;
  const auto r = run(t, CollectiveOp::broadcast, S, "world", Fidelity::analytic);
  REQUIRE(r.phases.size() == 1);
  const double chunks = std::round(std::sqrt((n - 2) * S / (alpha * beta)));
  CHECK(r.phases[0].repeat == static_cast<long long>(n - 2 + chunks));
  CHECK(r.time.seconds() ==
        doctest::Approx((n - 2 + chunks) * (alpha + S / chunks / beta)).epsilon(1e-9));
  CHECK(r.busbw > 0.85 * beta);  // 90%: the pipeline fill and the per-step latency
  // Each GPU but the last forwards S once: (n-1)/n·S per GPU over NVLink.
  CHECK(r.nvlink_bytes_per_gpu == doctest::Approx((n - 1) / n * S));
}

TEST_CASE("busbw of a large ring all-reduce inside one H800 node approaches NVLink") {
  const hw::Topology t(cluster("topologies/h800-1x8.yaml"));
  const auto r = run(t, CollectiveOp::all_reduce, 4.0 * (1 << 30), "world", Fidelity::flow);
  CHECK(r.busbw / 1e9 == doctest::Approx(160.0).epsilon(0.01));
  CHECK(r.bottleneck == hw::LinkClass::nvlink);
}

TEST_CASE(
    "EP64 node-limited dispatch over 8 nodes: per-GPU InfiniBand in DeepEP's measured range") {
  const hw::Topology t(cluster("topologies/h800-256x8-mpft.yaml"));
  const double bytes = 4096.0 * 7168 * 1.0;  // 4096 tokens x 7168 hidden, FP8
  const auto r = run(t, CollectiveOp::dispatch, bytes, "nodes:0-7", Fidelity::flow);
  const double ib = r.ib_bytes_per_gpu / r.time.seconds() / 1e9;
  CHECK(ib >=
        43.0);  // DeepEP, H800: 43-58 GB/s per GPU on RDMA for EP 16-64 (deepseek-ai/DeepEP README)
  CHECK(ib <= 58.0);
  const auto c = run(t, CollectiveOp::combine, 2 * bytes, "nodes:0-7", Fidelity::flow);
  CHECK(c.ib_bytes_per_gpu / c.time.seconds() / 1e9 == doctest::Approx(ib).epsilon(0.05));
}

TEST_CASE(
    "A world all-to-all on 2048 GPUs is planned as bundles: linear in nodes, every pair counted") {
  const hw::Topology t(cluster("topologies/h800-256x8-mpft.yaml"));
  const auto g = net::parse_group("world", t, "test");
  const auto plan = net::plan_collective(CollectiveOp::all_to_all, 1 << 30, g, t);
  REQUIRE(plan.phases.size() == 1);
  const auto& tr = plan.phases[0].transfers;
  CHECK(tr.size() <= 8u * 8u * 256u * 2u);  // (local source, local destination, node offset, spine)
  double pairs = 0.0;
  for (const auto& x : tr) pairs += x.multiplicity;
  CHECK(pairs == 2048.0 * 2047.0);
  // Without bundling every pair is its own transfer.
  net::PlanOptions each;
  each.bundle = false;
  CHECK(net::plan_collective(CollectiveOp::all_to_all, 1 << 30, g, t, each)
            .phases[0]
            .transfers.size() == 2048u * 2047u);
}

TEST_CASE("Halving one NIC slows a world ring all-reduce about 2x, not a node-local one") {
  net::PlanOptions ring;
  ring.algorithm = "ring";
  const hw::Topology healthy(cluster("topologies/h800-4x8.yaml"));
  // The ring crosses nodes from GPU 7 of a node onto plane 0 (PXN), through NIC 0 of each node.
  const hw::Topology degraded(cluster(
      "topologies/h800-4x8.yaml", {"faults=[{kind: nic_degrade, node: 1, nic: 0, factor: 0.5}]"}));
  const double S = 1 << 30;
  const auto a = run(healthy, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  const auto b = run(degraded, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  CHECK(b.time.seconds() / a.time.seconds() == doctest::Approx(2.0).epsilon(0.05));
  const auto c = run(healthy, CollectiveOp::all_reduce, S, "node:2", Fidelity::flow);
  const auto d = run(degraded, CollectiveOp::all_reduce, S, "node:2", Fidelity::flow);
  CHECK(c.time == d.time);
}

TEST_CASE("Bundled and unbundled runs agree") {
  const hw::Topology t(cluster("topologies/h800-4x8.yaml"));
  net::PlanOptions flat;
  flat.bundle = false;
  for (const CollectiveOp op :
       {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::all_to_all,
        CollectiveOp::dispatch, CollectiveOp::combine}) {
    CAPTURE(net::to_string(op));
    const auto b = run(t, op, 64.0 * (1 << 20), "world", Fidelity::flow);
    const auto u = run(t, op, 64.0 * (1 << 20), "world", Fidelity::flow, flat);
    CHECK(b.flows < u.flows);
    CHECK(std::abs(b.time.seconds() - u.time.seconds()) <= 1e-9 * (1 + b.phases.size()) * 1000);
    CHECK(b.ib_bytes_per_gpu == doctest::Approx(u.ib_bytes_per_gpu));
  }
}

TEST_CASE("Groups") {
  const hw::Topology t(cluster("topologies/h800-4x8.yaml"));
  CHECK(net::parse_group("world", t, "g").size() == 32);
  CHECK(net::parse_group("node:1", t, "g") == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(net::parse_group("nodes:0-1", t, "g").size() == 16);
  CHECK(net::parse_group("plane:3", t, "g") == std::vector<int>{3, 11, 19, 27});
  CHECK(net::parse_group("ranks:4-7", t, "g").size() == 4);
  CHECK(net::parse_group("5,1,3", t, "g") == std::vector<int>{1, 3, 5});
  CHECK_THROWS_AS(net::parse_group("node:9", t, "g"), engine::UserError);
  CHECK_THROWS_AS(net::parse_group("planet:1", t, "g"), engine::UserError);
  CHECK_THROWS_AS(net::parse_group("3", t, "g"), engine::UserError);
}

TEST_CASE(
    "On 2048 GPUs too: one NIC at half bandwidth makes a large world ring all-reduce about 2x "
    "slower") {
  net::PlanOptions ring;
  ring.algorithm = "ring";
  const hw::Topology healthy(cluster("topologies/h800-256x8-mpft.yaml"));
  const hw::Topology degraded(
      cluster("topologies/h800-256x8-mpft.yaml",
              {"faults=[{kind: nic_degrade, node: 5, nic: 0, factor: 0.5}]"}));
  // 16 GiB: large enough that bandwidth, not the 4094 steps' latency, sets the time.
  const double S = 16.0 * (1 << 30);
  const auto a = run(healthy, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  const auto b = run(degraded, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  CHECK(b.time.seconds() / a.time.seconds() == doctest::Approx(2.0).epsilon(0.05));
  CHECK(a.busbw / 1e9 ==
        doctest::Approx(48.0).epsilon(0.05));  // a flat ring runs at the NIC's rate
  const auto c = run(healthy, CollectiveOp::all_reduce, S, "node:100", Fidelity::flow);
  const auto d = run(degraded, CollectiveOp::all_reduce, S, "node:100", Fidelity::flow);
  CHECK(c.time == d.time);
}
