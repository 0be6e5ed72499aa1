// DeepSeek's node-limited all-to-all (dispatch; combine is its reverse): S is the tokens × hidden
// bytes a GPU dispatches. Every GPU sends S·T/k to the GPU of its own index on each other node
// (T target nodes per token, target_nodes_per_token in collective_cost.hpp), and forwards
// S·top_k/g to each other GPU of its node, concurrently (DeepEP pipelines the two). Bytes per
// GPU: S · (top_k·(g-1)/g over NVLink, T·(k-1)/k over InfiniBand); copies to one GPU holding two
// of a token's experts are not merged (an upper estimate).
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::dispatch || op == CollectiveOp::combine;
}

bool fits(GroupShape, bool uniform) {
  return uniform;
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const GroupLayout& l = in.layout;
  const double g = l.per_node(), k = static_cast<double>(l.nodes.size());
  const double targets =
      target_nodes_per_token(in.options.top_k, in.options.max_nodes, static_cast<int>(k));
  const bool reverse = in.op == CollectiveOp::combine;
  auto send = [&](int a, int b, double bytes) {
    sink.add(reverse ? Transfer{b, a, bytes} : Transfer{a, b, bytes});
  };
  for (std::size_t j = 0; j < l.nodes.size(); ++j)
    for (std::size_t i = 0; i < l.members[j].size(); ++i) {
      for (std::size_t m = 0; m < l.nodes.size(); ++m)
        if (m != j) send(l.members[j][i], l.members[m][i], in.bytes * targets / k);
      for (std::size_t i2 = 0; i2 < l.members[j].size(); ++i2)
        if (i2 != i) send(l.members[j][i], l.members[j][i2], in.bytes * in.options.top_k / g);
    }
  out.phases.push_back({std::string(to_string(in.op)), sink.take(), 1});
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double k = in.group.nodes(), e = in.group.gpus_per_node;
  return LinkBytes{in.top_k * (e - 1) / e,
                   target_nodes_per_token(in.top_k, in.max_nodes, in.group.nodes()) * (k - 1) / k} *
         in.bytes;
}

}  // namespace

extern const AlgorithmDef kNodeLimited{
    "node-limited", runs, fits, "the same GPUs on every node of the group", plan, bytes_per_gpu};

}  // namespace stepsim::net
