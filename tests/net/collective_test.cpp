#include <doctest/doctest.h>

#include <atomic>
#include <cmath>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "sim/net/group_layout.hpp"
#include "tests/net/cluster_fixture.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using engine::Time;
using hw::Fidelity;
using net::CollectiveOp;

using test::cluster;

namespace {

net::CollectiveResult run(const hw::Topology& t, CollectiveOp op, double bytes,
                          const std::string& group, Fidelity f, net::PlanOptions o = {}) {
  const auto g = net::parse_group(group, t, "test");
  return net::run_collective(net::plan_collective(op, bytes, g, t, o), bytes,
                             static_cast<int>(g.size()), t, f);
}

}  // namespace

TEST_CASE("Hierarchical all-reduce is the sum of its phases") {
  const hw::Topology t(cluster("topologies/h800-4x8.yaml"));
  const double S = 256.0 * (1 << 20);
  net::PlanOptions whole;
  whole.algorithm = "hierarchical";
  whole.protocol = "simple";
  whole.chunks = 1;
  const auto r = run(t, CollectiveOp::all_reduce, S, "world", Fidelity::analytic, whole);
  CHECK(r.algorithm == "hierarchical");
  REQUIRE(r.phases.size() == 3);
  // Simple's per-step sync beyond the wire latency, and its base cost (net/protocol.hpp).
  const double sync_nvlink = 2.8e-6, sync_net = 11.3e-6, base = 8.4e-6;
  // Intra-node ring steps: α_nvlink + sync + (S/8)/160 GB/s, 7 of them, twice.
  const double intra = 3.3e-6 + sync_nvlink + S / 8 / 160e9;
  // Inter-node ring over 4 nodes of one leaf: α_ib + sync + (S/32)/47 GB/s, 2·3 steps.
  const double inter = 2.8e-6 + sync_net + S / 32 / 47e9;
  CHECK(r.phases[0].repeat == 7);
  CHECK(r.phases[1].repeat == 6);
  CHECK(r.phases[0].step().seconds() == doctest::Approx(intra).epsilon(1e-9));
  CHECK(r.phases[1].step().seconds() == doctest::Approx(inter).epsilon(1e-9));
  // The whole: two intra-node rings of 7 steps and the inter-node ring of 6, one after another.
  CHECK(r.time.seconds() == doctest::Approx(base + 2 * 7 * intra + 6 * inter).epsilon(1e-9));
  // Each phase's busbw is what a GPU sends in it over its time: (g-1)/g·S over NVLink in the
  // intra-node phases, 2(k-1)/k·S/g over the NIC in the inter-node one.
  CHECK(r.phases[0].sent_per_gpu == doctest::Approx(7.0 / 8 * S));
  CHECK(r.phases[1].sent_per_gpu == doctest::Approx(2.0 * 3 / 4 * S / 8));
  CHECK(r.phases[0].busbw == doctest::Approx(r.phases[0].sent_per_gpu / (7 * intra)));
  CHECK(r.phases[1].busbw == doctest::Approx(r.phases[1].sent_per_gpu / (6 * inter)));
  CHECK(r.phases[0].bottleneck == hw::LinkGroup::nvlink);
  CHECK(r.phases[1].bottleneck == hw::LinkGroup::nic);
  // At 16 GiB latency fades: the NVLink phases run near 160 GB/s, the inter-node one near the
  // NIC's 47.
  const auto big =
      run(t, CollectiveOp::all_reduce, 16.0 * (1 << 30), "world", Fidelity::flow, whole);
  CHECK(big.phases[0].busbw == doctest::Approx(160e9).epsilon(0.01));
  CHECK(big.phases[1].busbw == doctest::Approx(47e9).epsilon(0.01));
  // Cut into chunks the phases overlap: NVLink carries both intra-node phases at once, so the
  // whole takes about the NVLink phases' bytes over 160 GB/s, 7/4·S, not the sum of all three.
  net::PlanOptions chunked = whole;
  chunked.chunks = 64;
  const auto piped =
      run(t, CollectiveOp::all_reduce, 16.0 * (1 << 30), "world", Fidelity::flow, chunked);
  CHECK(piped.time.seconds() < 0.8 * big.time.seconds());
  CHECK(piped.time.seconds() == doctest::Approx(1.75 * 16.0 * (1 << 30) / 160e9).epsilon(0.05));
}

TEST_CASE("Broadcast: a pipelined chain whose chunk count minimizes (n-2+C)(alpha + S/(C beta))") {
  const hw::Topology t(cluster("topologies/h800-1x8.yaml"));
  const double S = 1 << 30, n = 8, alpha = 3.3e-6, beta = 160e9;
  net::PlanOptions simple;
  simple.protocol = "simple";
  const auto r = run(t, CollectiveOp::broadcast, S, "world", Fidelity::analytic, simple);
  REQUIRE(r.phases.size() == 1);
  const double chunks = std::round(std::sqrt((n - 2) * S / (alpha * beta)));
  CHECK(r.phases[0].repeat == static_cast<long long>(n - 2 + chunks));
  // Simple's per-step sync and base cost (net/protocol.hpp) on top.
  const double sync = 2.8e-6, base = 8.4e-6;
  CHECK(
      r.time.seconds() ==
      doctest::Approx(base + (n - 2 + chunks) * (alpha + sync + S / chunks / beta)).epsilon(1e-9));
  CHECK(r.busbw > 0.85 * beta);  // 90%: the pipeline fill and the per-step latency
  // Each GPU but the last forwards S once: (n-1)/n·S per GPU over NVLink.
  CHECK(r.nvlink_bytes_per_gpu == doctest::Approx((n - 1) / n * S));
}

TEST_CASE("busbw of a large ring all-reduce inside one H800 node approaches NVLink") {
  const hw::Topology t(cluster("topologies/h800-1x8.yaml"));
  net::PlanOptions ring;
  ring.algorithm = "ring";
  const auto r = run(t, CollectiveOp::all_reduce, 4.0 * (1 << 30), "world", Fidelity::flow, ring);
  CHECK(r.busbw / 1e9 == doctest::Approx(160.0).epsilon(0.01));
  CHECK(r.bottleneck == hw::LinkGroup::nvlink);
}

TEST_CASE(
    "A world all-to-all on 2048 GPUs is planned as bundles: linear in nodes, every pair counted") {
  const hw::Topology t(cluster("topologies/h800-256x8-mpft.yaml"));
  const auto g = net::parse_group("world", t, "test");
  const auto plan = net::plan_collective(CollectiveOp::all_to_all, 1 << 30, g, t);
  REQUIRE(plan.phases.size() == 1);
  const auto& tr = plan.phases[0].transfers;
  // (local source, local destination, node offset) under a leaf, and per spine index climbed to:
  // 8 leaves and 4 spines per plane.
  CHECK(tr.size() <= 8u * 8u * 256u * (1u + 4u));
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

TEST_CASE("A NIC at a quarter slows the rail-aligned rings to its rate, not a node-local one") {
  net::PlanOptions ring;
  ring.algorithm = "ring";
  ring.protocol = "simple";
  const hw::Topology healthy(cluster("topologies/h800-4x8.yaml"));
  // Eight rings, each leaving every node by its own NIC: healthy, a GPU's NVLink port carries
  // seven rings' hops (7b at 160 GB/s) and its NIC one (b at 47 GB/s), so NVLink binds; the ring
  // through NIC 0 of node 1 at 47/4 GB/s then sets the pace: 160 / (7 · 11.75) = 1.95x.
  const hw::Topology degraded(cluster(
      "topologies/h800-4x8.yaml", {"faults=[{kind: nic_degrade, node: 1, nic: 0, factor: 0.25}]"}));
  const double S = 1 << 30;
  const auto a = run(healthy, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  const auto b = run(degraded, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  CHECK(b.time.seconds() / a.time.seconds() ==
        doctest::Approx(160.0 / (7 * 0.25 * 47)).epsilon(0.03));
  const auto c = run(healthy, CollectiveOp::all_reduce, S, "node:2", Fidelity::flow);
  const auto d = run(degraded, CollectiveOp::all_reduce, S, "node:2", Fidelity::flow);
  CHECK(c.time == d.time);
}

TEST_CASE("A phase bundled as generated is what bundling it again gives, so it is not redone") {
  const hw::Topology t(cluster("topologies/h800-256x8-mpft.yaml"));
  const auto g = net::parse_group("nodes:0-63", t, "test");  // whole leaves: bundles spread
  const net::GroupLayout l = net::layout_of(g, t);
  int spread = 0;
  for (const CollectiveOp op :
       {CollectiveOp::all_to_all, CollectiveOp::all_gather, CollectiveOp::dispatch}) {
    CAPTURE(net::to_string(op));
    for (const net::Phase& p : net::plan_collective(op, 1 << 26, g, t).phases) {
      CHECK(p.bundled);
      net::Phase again = p;
      again.bundled = false;
      net::bundle(again, l, t);
      REQUIRE(again.transfers.size() == p.transfers.size());
      for (std::size_t i = 0; i < p.transfers.size(); ++i) {
        CAPTURE(i);
        CHECK(test::same_transfer(p.transfers[i], again.transfers[i]));
        spread += p.transfers[i].spread != nullptr;
      }
    }
  }
  CHECK(spread > 0);
}

TEST_CASE("Bundled and unbundled runs agree") {
  const hw::Topology t(cluster("topologies/h800-4x8.yaml"));
  net::PlanOptions flat;
  flat.bundle = false;
  for (const CollectiveOp op :
       {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::all_to_all,
        CollectiveOp::dispatch, CollectiveOp::combine}) {
    CAPTURE(net::to_string(op));
    net::PlanOptions bundled;
    bundled.algorithm = op == CollectiveOp::all_reduce ? "ring" : "auto";  // trees do not bundle
    flat.algorithm = bundled.algorithm;
    const auto b = run(t, op, 64.0 * (1 << 20), "world", Fidelity::flow, bundled);
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

TEST_CASE("On 2048 GPUs too: one NIC at a quarter sets the pace of a large world ring all-reduce") {
  net::PlanOptions ring;
  ring.algorithm = "ring";
  ring.protocol = "simple";
  const hw::Topology healthy(cluster("topologies/h800-256x8-mpft.yaml"));
  const hw::Topology degraded(
      cluster("topologies/h800-256x8-mpft.yaml",
              {"faults=[{kind: nic_degrade, node: 5, nic: 0, factor: 0.25}]"}));
  // 16 GiB: large enough that bandwidth, not the 4094 steps' latency, sets the time.
  const double S = 16.0 * (1 << 30);
  const auto a = run(healthy, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  const auto b = run(degraded, CollectiveOp::all_reduce, S, "world", Fidelity::flow, ring);
  // Each of the 4094 steps takes its slowest hop: healthy, an NVLink port's seven rings' bytes
  // (2·7/8·S in all at 160 GB/s) after 3.3 us wire + 2.8 us Simple sync per step; degraded, the
  // slow NIC's ring (2·S/8 at 47/4 GB/s) after 2.8 + 11.3 us per step.
  const double steps = 4094, nvlink_s = steps * 6.1e-6 + 2.0 * 7 / 8 * S / 160e9;
  const double slow_s = steps * 14.1e-6 + 2.0 * 2047 / 2048 * S / 8 / (0.25 * 47e9);
  CHECK(a.time.seconds() == doctest::Approx(nvlink_s).epsilon(0.01));
  CHECK(b.time.seconds() == doctest::Approx(slow_s).epsilon(0.01));
  const auto c = run(healthy, CollectiveOp::all_reduce, S, "node:100", Fidelity::flow);
  const auto d = run(degraded, CollectiveOp::all_reduce, S, "node:100", Fidelity::flow);
  CHECK(c.time == d.time);
}

TEST_CASE("No planned transfer's flow holds more elements than the pre-run memory estimate says") {
  // Spread bundles (whole leaves of 16-port switches, 4 spines), PXN, a clos3 across pods, both
  // planes of a dual-plane fabric; bundled and transfer by transfer.
  const std::vector<hw::Topology> fabrics{
      hw::Topology(
          cluster("topologies/h800-2048x8-mpft.yaml", {"nodes=64", "fabric.switch_ports=16"})),
      hw::Topology(cluster("topologies/h100-3072x8-meta-roce.yaml",
                           {"nodes=16", "fabric.leaves_per_pod=2"})),
      hw::Topology(
          cluster("topologies/h800-1920x8-hpn.yaml", {"nodes=32", "fabric.switch_ports=32"}))};
  bool spread_seen = false;
  for (const hw::Topology& t : fabrics)
    for (const char* words : {"world", "nodes:3-12"})
      for (const bool bundle : {true, false})
        for (const CollectiveOp op : {CollectiveOp::all_to_all, CollectiveOp::all_reduce}) {
          CAPTURE(t.spec().name);
          CAPTURE(words);
          CAPTURE(bundle);
          net::PlanOptions o;
          o.bundle = bundle;
          const auto g = net::parse_group(words, t, "test");
          std::size_t longest = 0, most_elements = 0;
          hw::Route r;
          for (const net::Phase& ph : net::plan_collective(op, 1 << 26, g, t, o).phases)
            for (const net::Transfer& tr : ph.transfers) {
              net::route_of(t, tr, r);
              longest = std::max(longest, r.links.size());
              spread_seen |= r.spread;
              // A spread's leaf-spine links are one group element a side.
              const auto core = static_cast<std::size_t>(std::ranges::count_if(
                  r.links, [&](int l) { return t.links()[l].cls == hw::LinkClass::ib_core; }));
              most_elements =
                  std::max(most_elements, r.links.size() - (r.spread && core > 2 ? core - 2 : 0));
            }
          CHECK(static_cast<double>(most_elements) <= net::estimate_route_elements(t));
          CHECK(longest > 0);
        }
  CHECK(spread_seen);  // some bundle spread over the spines
}

TEST_CASE("Planning an all-to-all of many pairs answers to the command's control") {
  const hw::Topology t(cluster("topologies/h800-256x8-mpft.yaml"));
  const auto g = net::parse_group("ranks:0-511", t, "test");  // 261,632 pairs
  std::atomic<bool> stop{true};
  engine::RunControl control;
  control.interrupted = &stop;
  engine::set_command_control(control);
  CHECK_THROWS_AS(net::plan_collective(CollectiveOp::all_to_all, 1 << 20, g, t), engine::Stopped);
  engine::set_command_control(engine::RunControl{});
  CHECK_NOTHROW(net::plan_collective(CollectiveOp::all_to_all, 1 << 20, g, t));
}
