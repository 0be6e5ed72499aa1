// In-network all-reduce across nodes (NCCL's CollNet with SHARP): the NVSwitch reduces inside each
// node (NVLS, as nvls_tree.cpp), leaving local GPU x with the node's x-th 1/g (without NVLS the
// same per-port load, S + S/g each way, is planned at the NVLink rate); each GPU sends that shard
// once to the InfiniBand switches, which reduce it across nodes and send every node the result
// once; the node then all-gathers it. For k > 1 nodes with the same g GPUs on each, on a fabric
// with SHARP (fabric: {sharp: true}). The switches' reduction is planned as each GPU sending its
// shard to the GPU of its index on the next node (the same S/g out of and into every NIC that SHARP
// moves); the aggregation tree's uplinks are not loaded as the real tree loads them. Steps: 2
// inside the node, 4 through a two-level fat-tree (up to the aggregation switch and back down).
// Bytes per GPU: NVLink (g+1)/g · S, InfiniBand S/g. Simple protocol only.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

constexpr double kSteps = 6.0;

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const GroupLayout& l = in.layout;
  const int g = l.per_node(), k = static_cast<int>(l.nodes.size());
  for (const auto& node : l.members)
    add_nvls_node(node, in.bytes, kSteps, nvls_wire_factor(in.topo), sink);
  for (int j = 0; j < k; ++j)
    for (int x = 0; x < g; ++x)
      sink.add({l.members[j][x], l.members[(j + 1) % k][x], in.bytes / g / kSteps});
  out.phases.push_back(sink.phase("sharp", static_cast<long long>(kSteps)));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double g = in.group.gpus_per_node;
  return {(g + 1) / g * in.bytes, in.bytes / g};
}

double steps(const ShapeInput&) {
  return kSteps;
}

}  // namespace

extern const AlgorithmDef kSharp{
    .name = "sharp",
    .runs = all_reduce_only,
    .fits = several_nodes,
    .needs = "the same GPUs on each of several nodes",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = node_shard_span,
    .feature = Feature::sharp,
    .simple_only = true,
    .nvls_rate = true,
};

}  // namespace stepsim::net
