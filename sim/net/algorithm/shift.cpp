// Ring shift (send/recv): every GPU of the group sends S to the next in rank order and receives
// S from the previous, all at once, as a batch of NCCL point-to-point operations
// (torch.distributed.batch_isend_irecv) does: one step of ring attention's KV rotation
// (workload/context_parallel.hpp). Time (analytic) = α + S/β of the slowest hop.
// Bytes per GPU: S. Over a group of n GPUs on k nodes with g on each, the k hops that leave a
// node cross the network: on average S/g per GPU over InfiniBand and S·(g-1)/g over NVLink (all
// of S over NVLink on one node). On a multi-plane fabric a hop that leaves a node joins two GPUs
// of different local indices (planes) when g > 1, and PXN first carries it over NVLink to the
// GPU of the destination's plane: S/g more over NVLink.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::send_recv;
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const std::size_t n = in.group.size();
  for (std::size_t i = 0; i < n; ++i) sink.add({in.group[i], in.group[(i + 1) % n], in.bytes});
  out.phases.push_back(sink.phase("shift", 1));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double g = in.group.gpus_per_node;
  if (in.group.nodes() <= 1) return {in.bytes, 0.0};
  const double pxn = in.pxn && g > 1 ? in.bytes / g : 0.0;
  return {in.bytes * (g - 1) / g + pxn, in.bytes / g};
}

}  // namespace

extern const AlgorithmDef kShift{
    .name = "shift",
    .runs = runs,
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .span = whole_span,
};

}  // namespace stepsim::net
