#include "sim/net/collective_cost.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/check.hpp"
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

std::string_view to_string(CollectiveOp op) {
  static constexpr std::string_view kNames[] = {"all_reduce", "all_gather", "reduce_scatter",
                                                "all_to_all", "broadcast",  "p2p",
                                                "dispatch",   "combine",    "send_recv"};
  return kNames[static_cast<int>(op)];
}

std::string_view algorithm_for(CollectiveOp op, GroupShape group) {
  return choose_algorithm(op, group, true, "auto").name;
}

LinkBytes collective_bytes_per_gpu(CollectiveOp op, double s, GroupShape group, bool pxn) {
  STEPSIM_CHECK(
      group.size >= 1 && group.gpus_per_node >= 1 && group.size % group.gpus_per_node == 0,
      "group shape must tile whole nodes");
  if (group.size <= 1) return {};
  ShapeInput in{op, s, group};
  in.pxn = pxn;
  return choose_algorithm(op, group, true, "auto").bytes_per_gpu(in);
}

LinkBytes p2p_bytes(double bytes, bool same_node) {
  return same_node ? LinkBytes{bytes, 0.0} : LinkBytes{0.0, bytes};
}

LinkBytes node_limited_copies_per_token(const NodeLimitedA2A& a2a) {
  if (a2a.ep.size <= 1) return {};
  ShapeInput in{CollectiveOp::dispatch, 1.0, a2a.ep};
  in.top_k = a2a.top_k;
  in.max_nodes = a2a.max_nodes;
  in.experts = a2a.experts;
  return find_algorithm("deepep")->bytes_per_gpu(in);
}

namespace {

// Probability that a uniform random top_k-subset of `total` items misses `bins` given ones.
double miss(double total, double bins, int top_k) {
  double p = 1.0;
  for (int i = 0; i < top_k; ++i) p *= std::max(0.0, (total - bins - i) / (total - i));
  return p;
}

// Expected distinct bins hit among `bins` bins of `per` items each.
double distinct(int top_k, double bins, double per) {
  if (bins <= 1.0) return 1.0;
  if (per < 1.0 || bins * per < top_k) return bins * (1.0 - std::pow(1.0 - 1.0 / bins, top_k));
  return bins * (1.0 - miss(bins * per, per, top_k));
}

}  // namespace

double target_nodes_per_token(int top_k, int max_nodes, int nodes, int experts) {
  if (max_nodes > 0 && max_nodes < nodes) return std::min<double>(max_nodes, top_k);
  return distinct(top_k, nodes, static_cast<double>(experts) / nodes);
}

double target_ranks_per_token(int top_k, int max_nodes, int nodes, int gpus_per_node, int experts) {
  const double per_gpu = static_cast<double>(experts) / (nodes * gpus_per_node);
  const int picked = max_nodes > 0 && max_nodes < nodes ? max_nodes : nodes;
  return distinct(top_k, static_cast<double>(picked) * gpus_per_node, per_gpu);
}

}  // namespace stepsim::net
