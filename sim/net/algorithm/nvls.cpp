// NVLS all-reduce inside one node (NVLink SHARP): each GPU reduces its 1/g of the vector in the
// NVSwitch (multimem.ld_reduce reads it from every GPU) and writes the result back once, which
// the switch multicasts to all (multimem.st). Per GPU and direction: S + S/g bytes through its
// NVLink port, at the NVLS rate the cluster declares (nvlink: {nvls: RATE}); so
// algbw = β_nvls · g/(g+1), busbw = 2(g-1)/(g+1) · β_nvls (NCCL maintainers, NVIDIA/nccl-tests
// #212 and PR #239: "algbw = busbw · n/(n+1)" with busbw the wire rate). Two steps (reduce,
// multicast) through the switch; Simple protocol only, as NCCL runs it.
// Not modelled: NVLS reduce-scatter and all-gather (each GPU sends S and receives S/g: slower than
// a ring, NVIDIA/nccl#1083), the switch's multicast buffer limits.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

void add_nvls_node(const std::vector<int>& node, double bytes, double steps, double wire,
                   TransferSink& sink) {
  const double g = static_cast<double>(node.size());
  const double each = bytes * (g + 1) / g / (g - 1) * wire / steps;
  for (int a : node)
    for (int b : node)
      if (a != b) sink.add({a, b, each, 1.0, 1.0, 1.0 / wire});
}

namespace {

bool fits(GroupShape s, bool uniform) {
  return uniform && s.nodes() == 1 && s.gpus_per_node > 1;
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  add_nvls_node(in.layout.members.front(), in.bytes, 2.0, nvls_wire_factor(in.topo), sink);
  out.phases.push_back(sink.phase("nvls", 2));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double g = in.group.gpus_per_node;
  return {(g + 1) / g * in.bytes, 0.0};
}

double steps(const ShapeInput&) {
  return 2.0;
}

}  // namespace

extern const AlgorithmDef kNvls{
    .name = "nvls",
    .runs = all_reduce_only,
    .fits = fits,
    .needs = "one node of several GPUs",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = node_shard_span,
    .feature = Feature::nvls,
    .simple_only = true,
    .nvls_rate = true,
};

}  // namespace stepsim::net
