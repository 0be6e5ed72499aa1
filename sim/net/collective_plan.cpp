#include "sim/net/collective_plan.hpp"

#include <algorithm>
#include <utility>

#include "sim/engine/check.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/net/group_layout.hpp"
#include "sim/net/tuner.hpp"

namespace stepsim::net {

namespace {

// plan_collective(), taking the transfers of `other` (replan()) where it can.
CollectivePlan plan_with(CollectiveOp op, double s, const std::vector<int>& group,
                         const hw::Topology& t, const PlanOptions& o, CollectivePlan* other) {
  STEPSIM_CHECK(!group.empty() && std::is_sorted(group.begin(), group.end()),
                "group must be sorted, non-empty");
  const GroupLayout l = layout_of(group, t);
  CollectivePlan plan;
  plan.op = op;
  if (group.size() == 1) {
    plan.algorithm = "none";
    return plan;
  }
  const Choice c = tune(op, s, l.shape(), l.uniform, t.spec(), o);
  const AlgorithmDef& algorithm = *c.algorithm;
  plan.algorithm = algorithm.name;
  plan.protocol = c.protocol;
  plan.channels = c.channels;
  plan.chunks = c.chunks;
  plan.predicted_s = c.predicted_s;
  if (algorithm.nccl) {
    const ProtocolDef& p = protocol_def(c.protocol);
    plan.wire_factor = 1.0 / p.payload;
    plan.nvlink_sync_s = p.nvlink_sync_s;
    plan.net_sync_s = p.net_sync_s;
    plan.base_s = p.base_s;
  }
  TransferSink sink(l, t, o.bundle && algorithm.bundles);
  const PlanInput in{op, s, group, l, t, o, c.channels};
  const auto bundled_alike = [&] {
    return std::all_of(other->phases.begin(), other->phases.end(),
                       [&](const Phase& p) { return p.bundled == sink.bundling(); });
  };
  if (other && algorithm.resize && other->op == op && other->algorithm == plan.algorithm &&
      bundled_alike()) {
    plan.phases = std::move(other->phases);
    algorithm.resize(in, plan);
  } else {
    if (other) std::vector<Phase>().swap(other->phases);  // consumed either way
    algorithm.plan(in, sink, plan);
  }
  for (auto& p : plan.phases) {
    if (sink.bundling()) bundle(p, l, t);  // a phase planned transfer by transfer
    if (plan.wire_factor != 1.0)
      for (Transfer& tr : p.transfers) {
        tr.bytes *= plan.wire_factor;
        tr.payload /= plan.wire_factor;
      }
  }
  return plan;
}

}  // namespace

CollectivePlan plan_collective(CollectiveOp op, double s, const std::vector<int>& group,
                               const hw::Topology& t, const PlanOptions& o) {
  return plan_with(op, s, group, t, o, nullptr);
}

CollectivePlan replan(CollectivePlan&& other, double s, const std::vector<int>& group,
                      const hw::Topology& t, const PlanOptions& o) {
  return plan_with(other.op, s, group, t, o, &other);
}

namespace {

// The group's nodes in rank order, for the estimates (no layout built).
std::vector<int> nodes_of(const std::vector<int>& group, const hw::Topology& topo) {
  std::vector<int> nodes;
  for (int gpu : group)
    if (nodes.empty() || nodes.back() != topo.node_of(gpu)) nodes.push_back(topo.node_of(gpu));
  return nodes;
}

}  // namespace

double estimate_transfers(CollectiveOp op, const std::vector<int>& group, const hw::Topology& topo,
                          const PlanOptions& options) {
  const double n = static_cast<double>(group.size());
  const std::vector<int> nodes = nodes_of(group, topo);
  const double k = static_cast<double>(nodes.size()), g = n / k;
  const bool bundled = options.bundle && can_bundle(topo);
  const double spines = std::max(1, topo.spines_per_plane()), pods = topo.pods();
  const bool spread = bundled && bundles_spread(nodes, topo);
  switch (op) {
    case CollectiveOp::all_to_all:
      // Bundles: per source and destination index and node offset, one under a leaf and one
      // through the spines (spread over them; one per spine index on a dual-plane fabric), and
      // between pods of a clos3 one per spine index and source and destination pod.
      return bundled
                 ? std::min(
                       n * (n - 1),
                       g * g * k * (1 + (spread ? 1 : spines) + (pods > 1 ? spines * 2 * pods : 0)))
                 : n * (n - 1);
    case CollectiveOp::dispatch:
    case CollectiveOp::combine:
      return n * (k - 1 + g);
    default:
      return 3 * n;  // a tree's chain links both ways and its edges
  }
}

double estimate_route_elements(const hw::Topology& topo) {
  return topo.spec().fabric.kind == spec::FabricKind::dual_plane ? 16.0 : 10.0;
}

std::vector<int> parse_group(const std::string& text, const hw::Topology& t,
                             const std::string& where) {
  auto fail = [&](const std::string& why) -> std::vector<int> {
    throw engine::UserError({where, 0, 0}, "bad group '" + text + "': " + why,
                            "groups: world, node:N, nodes:A-B, plane:P, ranks:A-B or a list 0,1,2");
  };
  auto number = [&](const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9)
      fail("'" + s + "' is not an index");
    return std::stoi(s);
  };
  auto range = [&](const std::string& s) {
    const auto dash = s.find('-');
    if (dash == std::string::npos) {
      const int v = number(s);
      return std::pair{v, v};
    }
    const int a = number(s.substr(0, dash)), b = number(s.substr(dash + 1));
    if (b < a) fail("empty range");
    return std::pair{a, b};
  };
  const int gpn = t.spec().gpus_per_node, nodes = t.spec().nodes;
  std::vector<int> g;
  const auto colon = text.find(':');
  const std::string kind = colon == std::string::npos ? text : text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (text == "world") {
    for (int i = 0; i < t.gpus(); ++i) g.push_back(i);
  } else if (kind == "node" || kind == "nodes") {
    const auto [a, b] = range(arg);
    if (b >= nodes) fail("the cluster has " + std::to_string(nodes) + " nodes");
    for (int i = a * gpn; i < (b + 1) * gpn; ++i) g.push_back(i);
  } else if (kind == "plane") {
    const int p = number(arg);
    if (p >= gpn) fail("a node has " + std::to_string(gpn) + " GPUs");
    for (int n = 0; n < nodes; ++n) g.push_back(n * gpn + p);
  } else if (kind == "ranks") {
    const auto [a, b] = range(arg);
    if (b >= t.gpus()) fail("the cluster has " + std::to_string(t.gpus()) + " GPUs");
    for (int i = a; i <= b; ++i) g.push_back(i);
  } else if (colon == std::string::npos) {
    for (std::size_t i = 0; i <= text.size();) {
      const auto comma = text.find(',', i);
      const int v =
          number(text.substr(i, comma == std::string::npos ? std::string::npos : comma - i));
      if (v >= t.gpus()) fail("GPU " + std::to_string(v) + " does not exist");
      g.push_back(v);
      if (comma == std::string::npos) break;
      i = comma + 1;
    }
  } else {
    fail("unknown kind '" + kind + "'");
  }
  std::sort(g.begin(), g.end());
  if (const auto twice = std::adjacent_find(g.begin(), g.end()); twice != g.end())
    fail("GPU " + std::to_string(*twice) + " is listed twice");
  if (g.size() < 2) fail("a collective needs at least 2 GPUs");
  return g;
}

}  // namespace stepsim::net
