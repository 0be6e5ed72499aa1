// Broadcast as a pipelined chain in rank order: S cut into C chunks, n-2+C steps in which every
// hop carries S/C, C = √((n-2)·S/(α·β)) (rounded, at least 1) minimizing (n-2+C)(α + S/(Cβ)),
// with α and β the latency and bandwidth of the chain's slowest hop. Bytes per GPU: every GPU
// but the last sends S once, (n-1)/n · S on average; k-1 of the n-1 hops cross nodes.
#include <algorithm>
#include <cmath>

#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::broadcast;
}

void plan(const PlanInput& in, TransferSink&, CollectivePlan& out) {
  const auto& group = in.group;
  const long long n = static_cast<long long>(group.size());
  double alpha = 0.0, beta = INFINITY;
  for (long long i = 0; i + 1 < n; ++i) {
    const hw::Route r = in.topo.route(group[i], group[i + 1]);
    alpha = std::max(alpha, r.latency_s);
    beta = std::min(beta, in.topo.bottleneck(r).first);
  }
  const double best =
      alpha > 0.0 && std::isfinite(beta) ? std::sqrt((n - 2) * in.bytes / (alpha * beta)) : 1.0;
  const long long chunks = std::clamp<long long>(std::llround(best), 1, 1 << 20);
  Phase p{"pipelined chain", {}, n - 2 + chunks, chunks};
  for (long long i = 0; i + 1 < n; ++i)
    p.transfers.push_back({group[i], group[i + 1], in.bytes / chunks});
  out.phases.push_back(std::move(p));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double n = in.group.size, k = in.group.nodes();
  return {(n - k) / n * in.bytes, (k - 1) / n * in.bytes};
}

double steps(const ShapeInput& in) {
  return in.group.size - 1.0;
}

}  // namespace

extern const AlgorithmDef kChain{
    .name = "chain",
    .runs = runs,
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = no_span,  // the chain cuts itself
};

}  // namespace stepsim::net
