// NVLS-tree all-reduce across nodes (NCCL's NVLSTree): inside each node the NVSwitch reduces
// (multimem.ld_reduce) so that local GPU x holds the node's sum of the x-th 1/g of the vector;
// the GPUs of index x all-reduce that shard across nodes over their own NICs in a double binary
// tree (NCCL's, dtree_parent: half the shard each); the switch then
// multicasts the result in every node (multimem.st). For k > 1 nodes with the same g GPUs on each,
// on a cluster with NVLS. All hops at once (a stream phase): per GPU S + S/g through its NVLink
// port at the NVLS rate, and across nodes about 2S/g through its NIC on an inner tree node.
// Steps: 2 through the switch, 2·⌈log2 k⌉ tree levels. Bytes per GPU: NVLink (g+1)/g · S,
// InfiniBand 2(k-1)/(k·g) · S. Simple protocol only.
// Left out: the pipeline's fill, NCCL's per-channel caps (it reaches its peak with 16 SMs,
// NVIDIA/nccl#1649).
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

double steps_of(double k) {
  return 2.0 + 2.0 * log2_ceil(k);
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const GroupLayout& l = in.layout;
  const int g = l.per_node(), k = static_cast<int>(l.nodes.size());
  const double d = steps_of(k);
  for (const auto& node : l.members)
    add_nvls_node(node, in.bytes, d, nvls_wire_factor(in.topo), sink);
  const double half = in.bytes / g / 2 / d;
  for (int x = 0; x < g; ++x)
    for (int tree = 0; tree < 2; ++tree)
      for (int i = 0; i < k; ++i) {
        const int parent = dtree_parent(tree, i, k);
        if (parent < 0) continue;
        const int c = l.members[i][x], q = l.members[parent][x];
        sink.add({c, q, half});
        sink.add({q, c, half});
      }
  out.phases.push_back(sink.phase("nvls-tree", static_cast<long long>(d)));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double g = in.group.gpus_per_node, k = in.group.nodes();
  return {(g + 1) / g * in.bytes, 2.0 * (k - 1) / (k * g) * in.bytes};
}

double steps(const ShapeInput& in) {
  return steps_of(in.group.nodes());
}

}  // namespace

extern const AlgorithmDef kNvlsTree{
    .name = "nvls-tree",
    .runs = all_reduce_only,
    .fits = several_nodes,
    .needs = "the same GPUs on each of several nodes",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = node_shard_span,
    .feature = Feature::nvls,
    .simple_only = true,
    .nvls_rate = true,
    .bundles = false,
    .ib_peak = dtree_ib_peak,
};

}  // namespace stepsim::net
