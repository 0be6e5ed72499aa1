#include "sim/net/transfer_dag.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using hw::Fidelity;
using net::CollectiveOp;

namespace {

hw::Topology topology(const char* file) {
  return hw::Topology(config::load_cluster(test::source_path(file), {}));
}

net::CollectivePlan plan(const hw::Topology& t, CollectiveOp op, double bytes, int chunks) {
  net::PlanOptions o;
  o.chunks = chunks;
  return net::plan_collective(op, bytes, net::parse_group("world", t, "test"), t, o);
}

// The α-β time of chunk j of a phase under the analytic model: its steps back to back, each as
// long as its slowest transfer (route latency + bytes over the route's narrowest link).
double chunk_seconds(const net::Phase& ph, const hw::Topology& t, int chunks) {
  double step = 0.0;
  for (const net::Transfer& tr : ph.transfers) {
    const hw::Route r = t.route(tr.src, tr.dst);
    double bw = INFINITY;
    for (int l : r.links) bw = std::min(bw, t.links()[l].bandwidth);
    step = std::max(step, r.latency_s + tr.bytes / chunks / bw);
  }
  return step * static_cast<double>(ph.repeat);
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
  // One phase has nothing to overlap: it is not cut.
  const net::CollectivePlan one = plan(t, CollectiveOp::all_to_all, 1 << 30, 4);
  REQUIRE(one.phases.size() == 1);
  CHECK(net::make_dag(one, 4).nodes.size() == 1);
}

TEST_CASE("Chunked phases under the alpha-beta model: the pipeline's critical path") {
  // Node (p, j) takes d_p, the same for every chunk; the longest path through the grid of
  // (phase, chunk) is sum_p d_p + (c - 1) max_p d_p.
  const hw::Topology t = topology("topologies/h800-4x8.yaml");
  for (int c : {1, 2, 3, 8}) {
    CAPTURE(c);
    const net::CollectivePlan p = plan(t, CollectiveOp::all_reduce, 1 << 30, c);
    const net::DagRun run = net::run_dag(p, net::make_dag(p, c), t, Fidelity::analytic);
    double sum = 0.0, longest = 0.0;
    for (const net::Phase& ph : p.phases) {
      const double d = chunk_seconds(ph, t, c);
      sum += d;
      longest = std::max(longest, d);
    }
    const double expected = sum + (c - 1) * longest;
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
  // NVLink (160 GB/s), the inter-node all-reduce 2·3/4·S/8 per GPU over its NIC (50 GB/s).
  const double nvlink = 7.0 / 8 * S / 160e9, ib = 2.0 * 3 / 4 * S / 8 / 50e9;
  CHECK(whole == doctest::Approx(2 * nvlink + ib).epsilon(0.01));
  // Streaming chunks hides the InfiniBand phase under the NVLink ones; the NVLink ports, which
  // both intra-node phases cross, still carry 2·7/8 S per GPU: a floor no chunking lowers.
  CHECK(chunked < 0.8 * whole);
  CHECK(chunked >= 2 * nvlink);
  CHECK(chunked == doctest::Approx(2 * nvlink).epsilon(0.02));
}
