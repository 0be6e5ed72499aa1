// Direct all-to-all: every GPU sends S/n to every other GPU at once. Bytes per GPU: (g-1)/n · S
// over NVLink, (n-g)/n · S over InfiniBand; on a multi-plane fabric the part for peers on other
// planes, (g-1)/g of the inter-node bytes, crosses NVLink first (PXN) and is added to NVLink.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::all_to_all;
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const double n = static_cast<double>(in.group.size());
  Phase p{"all-to-all", {}, 1};
  for (int a : in.group)
    for (int b : in.group)
      if (a != b) sink.add({a, b, in.bytes / n});
  p.transfers = sink.take();
  out.phases.push_back(std::move(p));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double n = in.group.size, g = in.group.gpus_per_node;
  LinkBytes b{(g - 1) / n * in.bytes, (n - g) / n * in.bytes};
  if (in.pxn) b.nvlink += b.ib * (g - 1) / g;
  return b;
}

double span(const ShapeInput& in) {
  return in.bytes / in.group.size;
}

}  // namespace

extern const AlgorithmDef kDirect{
    .name = "direct",
    .runs = runs,
    .fits = any_group,
    .needs = "at least 2 GPUs",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = one_step,
    .span = span,
};

}  // namespace stepsim::net
