// Hierarchical (two-level) all-reduce, all-gather and reduce-scatter, for a group of k > 1 nodes
// with the same g > 1 GPUs on each. Not one of NCCL's algorithms, so never the tuner's choice
// (--algorithm hierarchical runs it); phases one after another for one chunk, overlapping chunk by
// chunk when the data is cut into chunks (transfer_dag.hpp):
//   all-reduce:     intra-node ring reduce-scatter (g-1 steps of S/g), per-plane ring all-reduce
//                   across nodes (2(k-1) steps of S/(g·k)), intra-node all-gather (g-1 of S/g);
//   all-gather:     inter-node ring (k-1 steps of S/n), then intra-node (g-1 steps of S/g);
//   reduce-scatter: the mirror image.
// Bytes per GPU: all-gather IB (k-1)/k · S/g then NVLink (g-1)/g · S; reduce-scatter the
// reverse; all-reduce NVLink 2(g-1)/g · S and IB 2(k-1)/k · S/g.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

// Rings inside every node (one per node).
Phase intra_rings(const std::string& name, const GroupLayout& l, double bytes, long long repeat) {
  Phase p{name, {}, repeat};
  for (const auto& m : l.members)
    for (std::size_t i = 0; i < m.size(); ++i)
      p.transfers.push_back({m[i], m[(i + 1) % m.size()], bytes});
  return p;
}

// Rings across nodes, one per local index.
Phase inter_rings(const std::string& name, const GroupLayout& l, double bytes, long long repeat) {
  Phase p{name, {}, repeat};
  const std::size_t k = l.nodes.size();
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < l.members[j].size(); ++i)
      p.transfers.push_back({l.members[j][i], l.members[(j + 1) % k][i], bytes});
  return p;
}

void plan(const PlanInput& in, TransferSink&, CollectivePlan& out) {
  const GroupLayout& l = in.layout;
  const double s = in.bytes;
  const long long g = l.per_node(), k = static_cast<long long>(l.nodes.size()), n = g * k;
  if (in.op == CollectiveOp::all_reduce) {
    out.phases.push_back(intra_rings("intra-node reduce-scatter", l, s / g, g - 1));
    out.phases.push_back(inter_rings("inter-node all-reduce", l, s / g / k, 2 * (k - 1)));
    out.phases.push_back(intra_rings("intra-node all-gather", l, s / g, g - 1));
  } else if (in.op == CollectiveOp::all_gather) {
    out.phases.push_back(inter_rings("inter-node all-gather", l, s / n, k - 1));
    out.phases.push_back(intra_rings("intra-node all-gather", l, s / g, g - 1));
  } else {
    out.phases.push_back(intra_rings("intra-node reduce-scatter", l, s / g, g - 1));
    out.phases.push_back(inter_rings("inter-node reduce-scatter", l, s / n, k - 1));
  }
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double g = in.group.gpus_per_node, k = in.group.nodes();
  const LinkBytes pass{(g - 1) / g * in.bytes, (k - 1) / k * in.bytes / g};
  return in.op == CollectiveOp::all_reduce ? pass * 2.0 : pass;
}

double steps(const ShapeInput& in) {
  const double g = in.group.gpus_per_node, k = in.group.nodes();
  return (g - 1 + k - 1) * (in.op == CollectiveOp::all_reduce ? 2.0 : 1.0);
}

}  // namespace

extern const AlgorithmDef kHierarchical{
    .name = "hierarchical",
    .runs = ring_ops,
    .fits = several_nodes,
    .needs = "the same GPUs on each of several nodes",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = node_shard_span,
    .tuned = false,
};

}  // namespace stepsim::net
