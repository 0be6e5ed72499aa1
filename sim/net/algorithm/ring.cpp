// Ring all-reduce, all-gather and reduce-scatter with channels, as NCCL runs them: n-1 steps in
// which every GPU sends a block to the next (2(n-1) for all-reduce: a reduce-scatter pass, then
// an all-gather pass), all hops of a step at once, NVLink and NIC alike.
// Channels: the data is split over C channels; on a group of k > 1 nodes of the same g GPUs the
// channels follow P = min(C, g) rail-aligned rings, ring r leaving every node by a NIC of its own:
// it enters even nodes at local GPU r and walks up to r-1, enters odd nodes at r-1 and walks
// down to r, so every node-crossing hop joins two GPUs of the same local index (one plane or
// rail; the closing hop of an odd node count may change plane, PXN). Each GPU then sends over
// its NIC in one ring of the P and over NVLink in the others. Otherwise one ring in rank order.
// Time (analytic) = steps · (α + S/(n·β)) for one chunk; with c chunks the steps of chunk j
// follow those of chunk j-1 one stage behind (transfer_dag.hpp), (steps + c - 1) · α in all.
// Bytes per GPU: (n-1)/n · S per pass; with k > 1 nodes and P = g rings, 1/g of a GPU's ring
// bytes leave by its NIC.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

// The order of one rail-aligned ring over the group's nodes.
std::vector<int> rail_ring(const GroupLayout& l, int r) {
  const int g = l.per_node();
  std::vector<int> order;
  for (std::size_t j = 0; j < l.nodes.size(); ++j)
    for (int i = 0; i < g; ++i) {
      const int local = j % 2 == 0 ? (r + i) % g : ((r - 1 - i) % g + g) % g;
      order.push_back(l.members[j][local]);
    }
  return order;
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const long long n = static_cast<long long>(in.group.size());
  const GroupLayout& l = in.layout;
  const bool rails = l.uniform && l.nodes.size() > 1 && l.per_node() > 1;
  const int rings = rails ? std::min(in.channels, l.per_node()) : 1;
  HopSum hops;
  for (int r = 0; r < rings; ++r) {
    const std::vector<int> order = rails ? rail_ring(l, r) : in.group;
    for (std::size_t i = 0; i < order.size(); ++i)
      hops.add(order[i], order[(i + 1) % order.size()], in.bytes / n / rings);
  }
  hops.flush(sink);
  out.phases.push_back(sink.phase("ring", in.op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double n = in.group.size, g = in.group.gpus_per_node, k = in.group.nodes();
  const double total = (n - 1) / n * in.bytes * (in.op == CollectiveOp::all_reduce ? 2.0 : 1.0);
  if (k <= 1) return {total, 0.0};
  return {total * (g - 1) / g, total / g};  // g = 1: all over the NIC
}

double steps(const ShapeInput& in) {
  return (in.group.size - 1.0) * (in.op == CollectiveOp::all_reduce ? 2.0 : 1.0);
}

}  // namespace

extern const AlgorithmDef kRing{
    .name = "ring",
    .runs = ring_ops,
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = group_shard_span,
};

}  // namespace stepsim::net
