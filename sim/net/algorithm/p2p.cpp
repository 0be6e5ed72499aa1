// Point-to-point: one transfer of S from the group's first GPU to its last. Bytes per GPU are
// those of the one sender: S over NVLink inside a node, over InfiniBand across nodes.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::p2p;
}

void plan(const PlanInput& in, TransferSink&, CollectivePlan& out) {
  out.phases.push_back({"send", {{in.group.front(), in.group.back(), in.bytes}}, 1});
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  return in.group.nodes() > 1 ? LinkBytes{0.0, in.bytes} : LinkBytes{in.bytes, 0.0};
}

}  // namespace

extern const AlgorithmDef kP2p{
    .name = "p2p",
    .runs = runs,
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .span = whole_span,
};

}  // namespace stepsim::net
