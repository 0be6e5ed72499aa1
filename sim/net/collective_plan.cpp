#include "sim/net/collective_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "sim/engine/check.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/net/collective_cost.hpp"

namespace stepsim::net {

std::string_view to_string(CollectiveOp op) {
  static constexpr std::string_view kNames[] = {"all_reduce", "all_gather", "reduce_scatter",
                                                "all_to_all", "broadcast",  "p2p",
                                                "dispatch",   "combine"};
  return kNames[static_cast<int>(op)];
}

namespace {

// The group as nodes (in rank order) and the GPUs it has on each.
struct Layout {
  std::vector<int> nodes;
  std::vector<std::vector<int>> members;  // per node, sorted global ranks
  bool uniform = true;                    // same local indices on every node
  int per_node() const { return static_cast<int>(members.front().size()); }
};

Layout layout_of(const std::vector<int>& group, const hw::Topology& t) {
  Layout l;
  for (int g : group) {
    if (l.nodes.empty() || l.nodes.back() != t.node_of(g)) {
      l.nodes.push_back(t.node_of(g));
      l.members.emplace_back();
    }
    l.members.back().push_back(g);
  }
  for (const auto& m : l.members) {
    if (m.size() != l.members.front().size()) l.uniform = false;
    for (std::size_t i = 0; l.uniform && i < m.size(); ++i)
      if (t.local_of(m[i]) != t.local_of(l.members.front()[i])) l.uniform = false;
  }
  return l;
}

// Every member sends `bytes` to the next in `ring`.
Phase ring_step(const std::string& name, const std::vector<int>& ring, double bytes,
                long long repeat) {
  Phase p{name, {}, repeat};
  for (std::size_t i = 0; i < ring.size(); ++i)
    p.transfers.push_back({ring[i], ring[(i + 1) % ring.size()], bytes});
  return p;
}

// Rings inside every node (one per node), or across nodes (one per local index).
Phase intra_rings(const std::string& name, const Layout& l, double bytes, long long repeat) {
  Phase p{name, {}, repeat};
  for (const auto& m : l.members)
    for (std::size_t i = 0; i < m.size(); ++i)
      p.transfers.push_back({m[i], m[(i + 1) % m.size()], bytes});
  return p;
}

Phase inter_rings(const std::string& name, const Layout& l, double bytes, long long repeat) {
  Phase p{name, {}, repeat};
  const std::size_t k = l.nodes.size();
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < l.members[j].size(); ++i)
      p.transfers.push_back({l.members[j][i], l.members[(j + 1) % k][i], bytes});
  return p;
}

bool has_network_faults(const hw::Topology& t) {
  return std::any_of(t.spec().faults.begin(), t.spec().faults.end(),
                     [](const hw::FaultSpec& f) { return f.kind != hw::FaultKind::straggler; });
}

// Bundles transfers that are translations of one another by whole nodes (see the header): one
// representative per (local source, local destination, node offset, spine crossing), the first
// added, with the others' count as multiplicity. Transfers of another size stay apart. O(1) per
// transfer, so a large all-to-all is bundled as it is generated, never held pair by pair.
class Bundler {
 public:
  Bundler(const Layout& l, const hw::Topology& t)
      : t_(t),
        k_(static_cast<int>(l.nodes.size())),
        g_(t.spec().gpus_per_node),
        index_(t.spec().nodes, -1),
        slot_(static_cast<std::size_t>(g_) * g_ * k_ * 2, -1),
        leaves_(g_, 1) {
    for (int j = 0; j < k_; ++j) index_[l.nodes[j]] = j;
    // Distinct leaves the group's nodes occupy at each GPU index (one per plane or rail).
    for (int i = 0; i < g_; ++i) {
      std::vector<int> seen;
      for (int node : l.nodes) seen.push_back(t.leaf_of(node * g_ + i));
      std::sort(seen.begin(), seen.end());
      leaves_[i] =
          std::max<int>(1, static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin()));
    }
  }

  void add(const Transfer& tr) {
    const int offset = (index_[t_.node_of(tr.dst)] - index_[t_.node_of(tr.src)] + k_) % k_;
    const bool spine = offset != 0 && t_.crosses_spine(tr.src, tr.dst);
    int& slot =
        slot_[((static_cast<std::size_t>(t_.local_of(tr.src)) * g_ + t_.local_of(tr.dst)) * k_ +
               offset) *
                  2 +
              spine];
    if (slot >= 0 && out_[slot].bytes == tr.bytes) {
      out_[slot].multiplicity += tr.multiplicity;
      return;
    }
    if (slot < 0) slot = static_cast<int>(out_.size());
    out_.push_back(tr);
  }
  std::vector<Transfer> take() {
    std::fill(slot_.begin(), slot_.end(), -1);
    const bool pxn = t_.spec().fabric.kind == hw::FabricKind::multi_plane_fat_tree;
    for (Transfer& tr : out_) {
      if (tr.multiplicity <= 1.0 || !t_.crosses_spine(tr.src, tr.dst)) continue;
      // The NIC a transfer leaves by: its own, or with PXN the one on the destination's plane.
      const int index = pxn ? t_.local_of(tr.dst) : t_.local_of(tr.src);
      tr.core_weight = std::max(1.0, tr.multiplicity / leaves_[index]);
    }
    return std::exchange(out_, {});
  }

 private:
  const hw::Topology& t_;
  int k_, g_;
  std::vector<int> index_;   // group position of each node of the cluster
  std::vector<int> slot_;    // representative per key, -1: none yet
  std::vector<int> leaves_;  // per GPU index: leaves the group's nodes occupy
  std::vector<Transfer> out_;
};

void bundle(Phase& p, const Layout& l, const hw::Topology& t) {
  Bundler b(l, t);
  for (const Transfer& tr : p.transfers) b.add(tr);
  p.transfers = b.take();
}

}  // namespace

CollectivePlan plan_collective(CollectiveOp op, double s, const std::vector<int>& group,
                               const hw::Topology& t, const PlanOptions& o) {
  STEPSIM_CHECK(!group.empty() && std::is_sorted(group.begin(), group.end()),
                "group must be sorted, non-empty");
  const Layout l = layout_of(group, t);
  const long long n = static_cast<long long>(group.size());
  const long long k = static_cast<long long>(l.nodes.size());
  CollectivePlan plan;
  plan.op = op;
  const bool can_hier = l.uniform && k > 1 && l.per_node() > 1;
  // Transfers of the all-to-alls go through the bundler as they are made.
  const bool bundling = o.bundle && !has_network_faults(t);
  std::optional<Bundler> bundler;
  std::vector<Transfer> plain;
  if (bundling) bundler.emplace(l, t);
  auto emit = [&](const Transfer& tr) { bundling ? bundler->add(tr) : plain.push_back(tr); };
  auto take = [&] { return bundling ? bundler->take() : std::move(plain); };
  const bool hier = o.algorithm == AlgorithmChoice::hierarchical ||
                    (o.algorithm == AlgorithmChoice::automatic && can_hier);
  if (hier && !can_hier)
    throw engine::UserError(
        {"--algorithm", 0, 0},
        "a hierarchical collective needs the same GPUs on each of several nodes",
        "use --algorithm ring, or a group such as world or nodes:A-B");
  if (n == 1) {
    plan.algorithm = "none";
    return plan;
  }
  switch (op) {
    case CollectiveOp::all_reduce:
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter: {
      if (!hier) {
        plan.algorithm = "ring";
        plan.phases.push_back(
            ring_step("ring", group, s / n, op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1));
        break;
      }
      plan.algorithm = "hierarchical";
      const long long g = l.per_node();
      if (op == CollectiveOp::all_reduce) {
        plan.phases.push_back(intra_rings("intra-node reduce-scatter", l, s / g, g - 1));
        plan.phases.push_back(inter_rings("inter-node all-reduce", l, s / g / k, 2 * (k - 1)));
        plan.phases.push_back(intra_rings("intra-node all-gather", l, s / g, g - 1));
      } else if (op == CollectiveOp::all_gather) {
        plan.phases.push_back(inter_rings("inter-node all-gather", l, s / n, k - 1));
        plan.phases.push_back(intra_rings("intra-node all-gather", l, s / g, g - 1));
      } else {
        plan.phases.push_back(intra_rings("intra-node reduce-scatter", l, s / g, g - 1));
        plan.phases.push_back(inter_rings("inter-node reduce-scatter", l, s / n, k - 1));
      }
      break;
    }
    case CollectiveOp::all_to_all: {
      plan.algorithm = "direct";
      Phase p{"all-to-all", {}, 1};
      for (int a : group)
        for (int b : group)
          if (a != b) emit({a, b, s / n});
      p.transfers = take();
      plan.phases.push_back(std::move(p));
      break;
    }
    case CollectiveOp::dispatch:
    case CollectiveOp::combine: {
      if (!l.uniform)
        throw engine::UserError({"--group", 0, 0},
                                "dispatch/combine need the same GPUs on every node of the group",
                                "use a group of whole nodes, e.g. nodes:0-7");
      plan.algorithm = "node-limited";
      const double g = l.per_node();
      const double targets = target_nodes_per_token(o.top_k, o.max_nodes, static_cast<int>(k));
      Phase p{to_string(op).data(), {}, 1};
      const bool reverse = op == CollectiveOp::combine;
      auto send = [&](int a, int b, double bytes) {
        emit(reverse ? Transfer{b, a, bytes} : Transfer{a, b, bytes});
      };
      for (std::size_t j = 0; j < l.nodes.size(); ++j)
        for (std::size_t i = 0; i < l.members[j].size(); ++i) {
          for (std::size_t m = 0; m < l.nodes.size(); ++m)
            if (m != j) send(l.members[j][i], l.members[m][i], s * targets / k);
          for (std::size_t i2 = 0; i2 < l.members[j].size(); ++i2)
            if (i2 != i) send(l.members[j][i], l.members[j][i2], s * o.top_k / g);
        }
      p.transfers = take();
      plan.phases.push_back(std::move(p));
      break;
    }
    case CollectiveOp::broadcast: {
      plan.algorithm = "chain";
      // The chunk count that minimizes (n-2+C)(α + S/(Cβ)) on the chain's slowest hop.
      double alpha = 0.0, beta = INFINITY;
      for (long long i = 0; i + 1 < n; ++i) {
        const hw::Route r = t.route(group[i], group[i + 1]);
        alpha = std::max(alpha, r.latency_s);
        for (int link : r.links) beta = std::min(beta, t.links()[link].bandwidth);
      }
      const double best =
          alpha > 0.0 && std::isfinite(beta) ? std::sqrt((n - 2) * s / (alpha * beta)) : 1.0;
      const long long chunks = std::clamp<long long>(std::llround(best), 1, 1 << 20);
      Phase p{"pipelined chain", {}, n - 2 + chunks, chunks};
      for (long long i = 0; i + 1 < n; ++i)
        p.transfers.push_back({group[i], group[i + 1], s / chunks});
      plan.phases.push_back(std::move(p));
      break;
    }
    case CollectiveOp::p2p:
      plan.algorithm = "p2p";
      plan.phases.push_back({"send", {{group.front(), group.back(), s}}, 1});
      break;
  }
  if (bundling)
    for (auto& p : plan.phases) bundle(p, l, t);  // a no-op on phases bundled as generated
  return plan;
}

double estimate_transfers(CollectiveOp op, const std::vector<int>& group, const hw::Topology& topo,
                          const PlanOptions& options) {
  const double n = static_cast<double>(group.size());
  std::vector<int> nodes;
  for (int gpu : group)
    if (nodes.empty() || nodes.back() != topo.node_of(gpu)) nodes.push_back(topo.node_of(gpu));
  const double k = static_cast<double>(nodes.size()), g = n / k;
  const bool bundled = options.bundle && !has_network_faults(topo);
  switch (op) {
    case CollectiveOp::all_to_all:
      return bundled ? std::min(n * (n - 1), 2 * g * g * k) : n * (n - 1);
    case CollectiveOp::dispatch:
    case CollectiveOp::combine:
      return n * (k - 1 + g);
    default:
      return n;
  }
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
  g.erase(std::unique(g.begin(), g.end()), g.end());
  if (g.size() < 2) fail("a collective needs at least 2 GPUs");
  return g;
}

}  // namespace stepsim::net
