#include "sim/net/collective_cost.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/check.hpp"

namespace stepsim::net {

Algorithm algorithm_for(GroupShape group) {
  return group.nodes() > 1 && group.gpus_per_node > 1 ? Algorithm::hierarchical : Algorithm::ring;
}

namespace {

// One all-gather or reduce-scatter pass.
LinkBytes one_pass(double s, GroupShape group) {
  const double n = group.size, g = group.gpus_per_node, k = group.nodes();
  if (group.size <= 1) return {};
  if (algorithm_for(group) == Algorithm::hierarchical) {
    return {(g - 1) / g * s, (k - 1) / k * s / g};
  }
  const double total = (n - 1) / n * s;
  if (k <= 1) return {total, 0.0};
  return {total * (g - 1) / g, total / g};  // g = 1: all over the NIC
}

}  // namespace

LinkBytes collective_bytes_per_gpu(Collective op, double s, GroupShape group, bool multi_plane) {
  STEPSIM_CHECK(
      group.size >= 1 && group.gpus_per_node >= 1 && group.size % group.gpus_per_node == 0,
      "group shape must tile whole nodes");
  const double n = group.size, g = group.gpus_per_node;
  switch (op) {
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::broadcast:  // pipelined ring broadcast: each link carries S once, as one pass
      return one_pass(s, group);
    case Collective::all_reduce:
      return one_pass(s, group) * 2.0;
    case Collective::all_to_all: {
      if (group.size <= 1) return {};
      LinkBytes b{(g - 1) / n * s, (n - g) / n * s};
      if (multi_plane) b.nvlink += b.ib * (g - 1) / g;
      return b;
    }
  }
  return {};
}

LinkBytes p2p_bytes(double bytes, bool same_node) {
  return same_node ? LinkBytes{bytes, 0.0} : LinkBytes{0.0, bytes};
}

LinkBytes node_limited_copies_per_token(const NodeLimitedA2A& a2a) {
  const double k = a2a.ep.nodes();
  const double e = a2a.ep.gpus_per_node;
  const double top_k = a2a.top_k;
  return {top_k * (e - 1) / e,
          target_nodes_per_token(a2a.top_k, a2a.max_nodes, a2a.ep.nodes()) * (k - 1) / k};
}

double target_nodes_per_token(int top_k, int max_nodes, int nodes) {
  const double k = nodes;
  if (max_nodes > 0 && max_nodes < nodes) return std::min<double>(max_nodes, top_k);
  return k * (1.0 - std::pow(1.0 - 1.0 / k, top_k));
}

}  // namespace stepsim::net
