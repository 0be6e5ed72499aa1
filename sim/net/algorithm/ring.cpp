// Ring all-reduce, all-gather and reduce-scatter over the group in rank order: n-1 steps in which
// every GPU sends S/n to the next (2(n-1) for all-reduce: a reduce-scatter pass, then an
// all-gather pass). Time (analytic) = steps · (α + S/(n·β)). Bytes per GPU: (n-1)/n · S per pass;
// with k > 1 nodes one hop in g crosses nodes (NCCL runs one ring per NIC with the crossing
// point rotated), so on average 1/g of a GPU's ring bytes leave by its NIC.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather ||
         op == CollectiveOp::reduce_scatter;
}

void plan(const PlanInput& in, TransferSink&, CollectivePlan& out) {
  const long long n = static_cast<long long>(in.group.size());
  Phase p{"ring", {}, in.op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1};
  for (std::size_t i = 0; i < in.group.size(); ++i)
    p.transfers.push_back({in.group[i], in.group[(i + 1) % in.group.size()], in.bytes / n});
  out.phases.push_back(std::move(p));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double n = in.group.size, g = in.group.gpus_per_node, k = in.group.nodes();
  const double total = (n - 1) / n * in.bytes * (in.op == CollectiveOp::all_reduce ? 2.0 : 1.0);
  if (k <= 1) return {total, 0.0};
  return {total * (g - 1) / g, total / g};  // g = 1: all over the NIC
}

}  // namespace

extern const AlgorithmDef kRing{"ring", runs, any_group, "at least 2 GPUs", plan, bytes_per_gpu};

}  // namespace stepsim::net
