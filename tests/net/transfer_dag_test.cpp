#include "sim/net/transfer_dag.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/net/cluster_fixture.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using hw::Fidelity;
using net::CollectiveOp;

namespace {

hw::Topology topology(const char* file) {
  return hw::Topology(config::load_cluster(test::source_path(file), {}));
}

// The hierarchical all-reduce (three phases) with the Simple protocol.
net::CollectivePlan plan(const hw::Topology& t, CollectiveOp op, double bytes, int chunks) {
  net::PlanOptions o;
  o.algorithm = op == CollectiveOp::all_to_all ? "auto" : "hierarchical";
  o.protocol = "simple";
  o.chunks = chunks;
  return net::plan_collective(op, bytes, net::parse_group("world", t, "test"), t, o);
}

// The α-β time of chunk j of a phase under the analytic model: the latency of its steps (all of
// them for the first chunk, what the window of 8 slots leaves exposed for a later one) plus its
// share of the bytes, as long as its slowest transfer (route latency + protocol sync, bytes over
// the narrowest link).
double chunk_seconds(const net::CollectivePlan& p, const net::Phase& ph, const hw::Topology& t,
                     int chunks, int j) {
  double worst = 0.0;
  const double r = static_cast<double>(ph.repeat);
  for (const net::Transfer& tr : ph.transfers) {
    const hw::Route route = t.route(tr.src, tr.dst);
    double bw = INFINITY;
    for (int l : route.links) bw = std::min(bw, t.links()[l].bandwidth);
    const double sync = t.node_of(tr.src) == t.node_of(tr.dst) ? p.nvlink_sync_s : p.net_sync_s;
    const double alpha = route.latency_s + sync;
    const double latency =
        j == 0 ? r * alpha : net::later_chunk_latency(alpha, tr.bytes / chunks / bw, net::kSlots);
    worst = std::max(worst, latency + tr.bytes * r / chunks / bw);
  }
  return worst;
}

}  // namespace

TEST_CASE("A plan's DAG: chunk j of phase p after chunk j of phase p-1 and chunk j-1 of phase p") {
  const hw::Topology t = topology("topologies/h800-4x8.yaml");
  const net::CollectivePlan p = plan(t, CollectiveOp::all_reduce, 1 << 30, 4);
  REQUIRE(p.phases.size() == 3);  // hierarchical: reduce-scatter, all-reduce, all-gather
  const net::TransferDag dag = net::make_dag(p, p.chunks);
  REQUIRE(dag.nodes.size() == 12);
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const net::DagNode& n = dag.nodes[i];
    std::vector<int> want;
    if (n.phase > 0) want.push_back((n.phase - 1) * 4 + n.chunk);
    if (n.chunk > 0) want.push_back(n.phase * 4 + n.chunk - 1);
    CHECK(n.deps == want);
    for (int d : n.deps) CHECK(d < static_cast<int>(i));
  }
  // One phase stays one node, paying the later chunks' latency (transfer_dag.hpp).
  const net::CollectivePlan one = plan(t, CollectiveOp::all_to_all, 1 << 30, 4);
  REQUIRE(one.phases.size() == 1);
  const net::TransferDag d1 = net::make_dag(one, 4);
  REQUIRE(d1.nodes.size() == 1);
  CHECK(d1.nodes[0].first_steps == 1.0);
  CHECK(d1.nodes[0].later_chunks == 3.0);
}

TEST_CASE("Chunked phases under the alpha-beta model: the pipeline's critical path") {
  // Node (p, j) takes d(p, j) and starts when (p-1, j) and (p, j-1) are done: the end is the
  // longest path through the grid of (phase, chunk), after the protocol's base latency.
  const hw::Topology t = topology("topologies/h800-4x8.yaml");
  for (int c : {1, 2, 3, 8}) {
    CAPTURE(c);
    const net::CollectivePlan p = plan(t, CollectiveOp::all_reduce, 1 << 30, c);
    const net::DagRun run = net::run_dag(p, net::make_dag(p, c), t, Fidelity::analytic);
    std::vector<std::vector<double>> done(p.phases.size(), std::vector<double>(c, 0.0));
    for (std::size_t ph = 0; ph < p.phases.size(); ++ph)
      for (int j = 0; j < c; ++j) {
        const double ready =
            std::max(ph > 0 ? done[ph - 1][j] : 0.0, j > 0 ? done[ph][j - 1] : 0.0);
        done[ph][j] = ready + chunk_seconds(p, p.phases[ph], t, c, j);
      }
    const double expected = p.base_s + done.back().back();
    CHECK(std::abs(run.end.seconds() - expected) <= 1e-12 * 3 * c);
  }
}

TEST_CASE("Chunks let a hierarchical all-reduce's NVLink and InfiniBand phases overlap") {
  const hw::Topology t = topology("topologies/h800-4x8.yaml");
  const double S = 1 << 30;
  auto time = [&](int c) {
    return net::run_collective(plan(t, CollectiveOp::all_reduce, S, c), S, 32, t, Fidelity::flow)
        .time.seconds();
  };
  const double whole = time(1), chunked = time(4);
  // Phases one after another: reduce-scatter and all-gather each move 7/8 S per GPU over
  // NVLink (160 GB/s), the inter-node all-reduce 2·3/4·S/8 per GPU over its NIC (47 GB/s); the
  // 20 steps' latencies add 1-2 %.
  const double nvlink = 7.0 / 8 * S / 160e9, ib = 2.0 * 3 / 4 * S / 8 / 47e9;
  CHECK(whole == doctest::Approx(2 * nvlink + ib).epsilon(0.02));
  // Streaming chunks hides the InfiniBand phase under the NVLink ones; the NVLink ports, which
  // both intra-node phases cross, still carry 2·7/8 S per GPU: a floor no chunking lowers.
  CHECK(chunked < 0.8 * whole);
  CHECK(chunked >= 2 * nvlink);
  CHECK(chunked == doctest::Approx(2 * nvlink).epsilon(0.02));
}

TEST_CASE("Spine lumps: exactly the groups of leaf-spine links whose transfers all spread alike") {
  // Per group of leaf-spine links crossed: the distinct ways transfers cross it, as (link, share)
  // along their routes. Rows of one group are one row scaled exactly when one way crosses it;
  // lumped are those crossed one way over several spines.
  const auto ways_by_group = [](const hw::Topology& t, const net::CollectivePlan& plan) {
    std::map<int, std::set<std::vector<std::pair<int, double>>>> by;
    hw::Route r;
    for (const net::Phase& ph : plan.phases)
      for (const net::Transfer& tr : ph.transfers) {
        net::route_of(t, tr, r);
        std::map<int, std::vector<std::pair<int, double>>> ways;
        for (std::size_t i = 0; i < r.links.size(); ++i)
          if (t.links()[r.links[i]].cls == hw::LinkClass::ib_core)
            ways[hw::FlowNetwork::lump_key(t, r.links[i])].emplace_back(r.links[i], r.share_of(i));
        for (auto& [group, way] : ways) by[group].insert(way);
      }
    return by;
  };
  // 16-port switches: 8 nodes per leaf, 4 leaves and 8 spines per plane; and a clos3 of 4 pods of
  // 2 racks, whose racks send spread bundles within their pod and single paths to other pods.
  const hw::Topology mpft(
      test::cluster("topologies/h800-2048x8-mpft.yaml", {"nodes=32", "fabric.switch_ports=16"}));
  const hw::Topology clos3(test::cluster("topologies/h100-3072x8-meta-roce.yaml",
                                         {"nodes=16", "fabric.leaves_per_pod=2"}));
  for (const hw::Topology* fabric : {&mpft, &clos3}) {
    const hw::Topology& t = *fabric;
    CAPTURE(t.spec().name);
    const net::CollectivePlan p = net::plan_collective(CollectiveOp::all_to_all, 64.0 * (1 << 20),
                                                       net::parse_group("world", t, "test"), t);
    const auto by = ways_by_group(t, p);
    const hw::FlowNetwork::Lumps lumps = net::spine_lumps(p, t);
    // On the fat-tree some groups are lumped, some not (the representatives' source leaf sends
    // bundles spread in several ways); on the clos3 none, though bundles spread within a pod:
    // every rack's links also carry single paths to other pods. A group is lumped exactly when
    // one way crosses it.
    const bool spreads =
        std::any_of(p.phases.front().transfers.begin(), p.phases.front().transfers.end(),
                    [](const net::Transfer& tr) { return tr.spread != nullptr; });
    CHECK(spreads);
    CHECK(lumps.size() < by.size());
    CHECK(lumps.empty() == (fabric == &clos3));
    for (const auto& group_ways : by) {
      const int group = group_ways.first;
      const auto& ways = group_ways.second;
      CAPTURE(group);
      const bool alike = ways.size() == 1 && ways.begin()->size() > 1;
      REQUIRE(lumps.contains(group) == alike);
      if (!alike) continue;
      std::vector<double> shares;
      for (double w : lumps.at(group))
        if (w > 0.0) shares.push_back(w);
      std::vector<double> crossed;
      for (const auto& [link, share] : *ways.begin()) crossed.push_back(share);
      CHECK(shares == crossed);
    }
  }
  const hw::Topology& t = mpft;
  net::CollectivePlan p = net::plan_collective(CollectiveOp::all_to_all, 64.0 * (1 << 20),
                                               net::parse_group("world", t, "test"), t);
  REQUIRE(p.phases.size() == 1);
  const hw::FlowNetwork::Lumps lumps = net::spine_lumps(p, t);
  REQUIRE_FALSE(lumps.empty());
  // A transfer on one path through a lumped group takes the group out.
  const auto [group, spread] = *lumps.begin();
  net::Transfer* spread_one = nullptr;
  hw::Route r;
  for (net::Transfer& tr : p.phases.front().transfers) {
    net::route_of(t, tr, r);
    for (int l : r.links)
      if (t.links()[l].cls == hw::LinkClass::ib_core && hw::FlowNetwork::lump_key(t, l) == group)
        spread_one = &tr;
  }
  REQUIRE(spread_one != nullptr);
  net::Transfer alone = *spread_one;
  alone.spread = nullptr;
  p.phases.front().transfers.push_back(alone);
  CHECK_FALSE(net::spine_lumps(p, t).contains(group));
  // Unbundled transfers never spread: nothing to lump.
  net::PlanOptions every_flow;
  every_flow.bundle = false;
  CHECK(net::spine_lumps(net::plan_collective(CollectiveOp::all_to_all, 64.0 * (1 << 20),
                                              net::parse_group("world", t, "test"), t, every_flow),
                         t)
            .empty());
}
