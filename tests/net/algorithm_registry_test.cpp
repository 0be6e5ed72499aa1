// The collective algorithm registry: names resolve, `auto` picks as documented, and for every
// registered algorithm the transfers its plan makes move, per GPU and link class, the bytes its
// closed form (the roofline's) says: the two views of one algorithm agree.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/net/collective_plan.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;

namespace {

constexpr CollectiveOp kOps[] = {
    CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
    CollectiveOp::all_to_all, CollectiveOp::broadcast,  CollectiveOp::p2p,
    CollectiveOp::dispatch,   CollectiveOp::combine,    CollectiveOp::send_recv};

// Bytes per GPU the plan sends to GPUs of the same node (NVLink) and of other nodes (NIC), over
// every step of every phase, unbundled, as data (Transfer::payload); per sender for p2p.
net::LinkBytes planned(const net::CollectivePlan& p, const hw::Topology& t, int n) {
  net::LinkBytes b;
  for (const auto& ph : p.phases)
    for (const auto& tr : ph.transfers) {
      const double bytes =
          tr.bytes * tr.payload * static_cast<double>(ph.payload_steps()) * tr.multiplicity;
      (t.node_of(tr.src) == t.node_of(tr.dst) ? b.nvlink : b.ib) += bytes;
    }
  return b * (1.0 / (p.op == CollectiveOp::p2p ? 1 : n));
}

}  // namespace

TEST_CASE("Registered algorithms resolve by name; the roofline's default is the documented one") {
  CHECK(net::algorithms().size() == 11);
  for (const net::AlgorithmDef* a : net::algorithms()) CHECK(net::find_algorithm(a->name) == a);
  CHECK(net::find_algorithm("pat") == nullptr);
  CHECK(net::algorithm_names() ==
        "auto, hierarchical, ring, tree, nvls, nvls-tree, sharp, direct, deepep, chain, p2p, "
        "shift");
  const net::GroupShape node{8, 8}, nodes{32, 8}, plane{4, 1};
  CHECK(net::choose_algorithm(CollectiveOp::all_reduce, node, true, "auto").name == "ring");
  CHECK(net::choose_algorithm(CollectiveOp::all_reduce, nodes, true, "auto").name ==
        "hierarchical");
  CHECK(net::choose_algorithm(CollectiveOp::all_reduce, nodes, false, "auto").name == "ring");
  CHECK(net::choose_algorithm(CollectiveOp::all_gather, plane, true, "auto").name == "ring");
  CHECK(net::choose_algorithm(CollectiveOp::all_to_all, nodes, true, "auto").name == "direct");
  CHECK(net::choose_algorithm(CollectiveOp::dispatch, nodes, true, "auto").name == "deepep");
  CHECK(net::choose_algorithm(CollectiveOp::broadcast, nodes, true, "auto").name == "chain");
  CHECK(net::choose_algorithm(CollectiveOp::p2p, plane, true, "auto").name == "p2p");
  CHECK(net::choose_algorithm(CollectiveOp::send_recv, nodes, true, "auto").name == "shift");
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::all_reduce, nodes, true, "pat"),
                  engine::UserError);
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::all_to_all, nodes, true, "ring"),
                  engine::UserError);
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::all_reduce, node, true, "hierarchical"),
                  engine::UserError);
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::all_reduce, nodes, true, "nvls"),
                  engine::UserError);
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::dispatch, nodes, false, "auto"),
                  engine::UserError);
  // Features: NVLS on the H800 files, SHARP on none.
  const auto h800 = config::load_cluster(test::source_path("topologies/h800-4x8.yaml"), {});
  const auto a100 = config::load_cluster(test::source_path("topologies/a100-64x8-dgx.yaml"), {});
  CHECK_NOTHROW(net::choose_algorithm(CollectiveOp::all_reduce, nodes, true, "nvls-tree", &h800));
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::all_reduce, nodes, true, "nvls-tree", &a100),
                  engine::UserError);
  CHECK_THROWS_AS(net::choose_algorithm(CollectiveOp::all_reduce, nodes, true, "sharp", &h800),
                  engine::UserError);
}

TEST_CASE("Every algorithm's plan moves the bytes of its closed form") {
  // SHARP declared, so that every algorithm runs.
  const hw::Topology t(config::load_cluster(
      test::source_path("topologies/h800-256x8-mpft.yaml"),
      {config::parse_override("nodes=8"), config::parse_override("fabric.sharp=true")}));
  const double S = 96.0 * 1024 * 1024;
  struct Group {
    const char* text;
    net::GroupShape shape;
  };
  int checked = 0;
  for (const Group& g : {Group{"node:0", {8, 8}}, Group{"nodes:0-3", {32, 8}},
                         Group{"plane:2", {8, 1}}, Group{"0,8", {2, 1}}, Group{"0,1", {2, 2}}}) {
    const std::vector<int> group = net::parse_group(g.text, t, "test");
    for (const net::AlgorithmDef* a : net::algorithms())
      for (CollectiveOp op : kOps) {
        if (!a->runs(op) || !a->fits(g.shape, true)) continue;
        if (op == CollectiveOp::p2p && group.size() != 2) continue;
        CAPTURE(a->name);
        CAPTURE(net::to_string(op));
        CAPTURE(g.text);
        net::PlanOptions o;
        o.algorithm = a->name;
        o.bundle = false;
        o.protocol = a->nccl && !a->simple_only ? "ll" : "auto";
        o.top_k = 8;
        o.max_nodes = 4;
        const auto plan = net::plan_collective(op, S, group, t, o);
        CHECK(plan.algorithm == a->name);
        net::ShapeInput in{op, S, g.shape};
        in.top_k = o.top_k;
        in.max_nodes = o.max_nodes;
        const net::LinkBytes closed = a->bytes_per_gpu(in);
        const net::LinkBytes simulated = planned(plan, t, static_cast<int>(group.size()));
        CHECK(simulated.nvlink == doctest::Approx(closed.nvlink).epsilon(1e-9));
        CHECK(simulated.ib == doctest::Approx(closed.ib).epsilon(1e-9));
        ++checked;
      }
  }
  CHECK(checked >= 25);
}
