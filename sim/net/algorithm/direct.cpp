// Direct all-to-all: every GPU sends S/n to every other GPU at once. Bytes per GPU: (g-1)/n · S
// over NVLink, (n-g)/n · S over InfiniBand; on a multi-plane fabric the part for peers on other
// planes, (g-1)/g of the inter-node bytes, crosses NVLink first (PXN) and is added to NVLink.
#include <algorithm>

#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::all_to_all;
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const double n = static_cast<double>(in.group.size());
  // Bundled, the sources go local rank by local rank: the bundles one local rank's transfers
  // join (on 16,384 GPUs, 4 MiB of their per-spine counts) stay in cache while its sources add
  // to them, where rank order would cycle through all of them (32 MiB) at a cache miss a
  // transfer (the 16,384-GPU world all-to-all: 22 -> 19.5 s).
  std::vector<int> sources(in.group);
  if (sink.bundling())
    std::stable_sort(sources.begin(), sources.end(),
                     [&](int x, int y) { return in.topo.local_of(x) < in.topo.local_of(y); });
  sink.expect(in.group.size() * (in.group.size() - 1));
  for (int a : sources)
    for (int b : in.group)
      if (a != b) sink.add({a, b, in.bytes / n});
  out.phases.push_back(sink.phase("all-to-all", 1));
}

// Every pair carries S/n at any size: a plan's bundles at another size are this size's.
void resize(const PlanInput& in, CollectivePlan& out) {
  const double n = static_cast<double>(in.group.size());
  for (Phase& p : out.phases)
    for (Transfer& tr : p.transfers) {
      tr.bytes = in.bytes / n;
      tr.payload = 1.0;
    }
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double n = in.group.size, g = in.group.gpus_per_node;
  LinkBytes b{(g - 1) / n * in.bytes, (n - g) / n * in.bytes};
  if (in.pxn) b.nvlink += b.ib * (g - 1) / g;
  return b;
}

}  // namespace

extern const AlgorithmDef kDirect{
    .name = "direct",
    .runs = runs,
    .plan = plan,
    .resize = resize,
    .bytes_per_gpu = bytes_per_gpu,
    .span = group_shard_span,
};

}  // namespace stepsim::net
