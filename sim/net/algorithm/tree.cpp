// Tree all-reduce as NCCL runs it across nodes: a chain through the GPUs of each node and a
// double binary tree across the nodes, reduce going up while broadcast comes down, pipelined.
// For a group of k > 1 nodes with the same g GPUs on each.
// Channels: P = min(C, g) patterns, pattern r carrying S/P; its chain in every node starts at
// local GPU r (the head, whose NIC joins the trees) and visits r+1, ..., r-1. Across nodes NCCL's
// double binary tree (dtree_parent), each tree with half of the pattern's data: an inner node
// receives from two children and sends to its parent, then the reverse, so across both trees a
// node sends and receives up to 2·S/P per pattern.
// Hops and bytes, all moving at once (a stream phase, algorithm.hpp): in every node each chain
// link carries S/P up (reduce) and S/P down (broadcast); each tree edge S/(2P) up and S/(2P)
// down. Steps a byte crosses: 2(g-1) chain hops and 2·⌈log2 k⌉ tree levels.
// Bytes per GPU: NVLink 2(g-1)/g · S, InfiniBand 2(k-1)/(k·g) · S.
// Left out: the fill of the pipeline before every hop works (a tree of one chunk is timed as if
// full), NCCL's per-channel tree bandwidth caps.
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

int btree_parent(int r, int n) {
  if (r == 0) return -1;
  const int bit = r & -r;
  const int up = (r ^ bit) | (bit << 1);
  return up >= n ? r ^ bit : up;
}

}  // namespace

int dtree_parent(int tree, int rank, int n) {
  if (tree == 0) return btree_parent(rank, n);
  const bool odd = n % 2 == 1;
  const int mapped = odd ? (rank - 1 + n) % n : n - 1 - rank;
  const int p = btree_parent(mapped, n);
  if (p < 0) return -1;
  return odd ? (p + 1) % n : n - 1 - p;
}

namespace {

bool fits(GroupShape s, bool uniform) {
  return uniform && s.nodes() > 1;
}

double steps_of(double g, double k) {
  return 2.0 * (g - 1.0) + 2.0 * log2_ceil(k);
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const GroupLayout& l = in.layout;
  const int g = l.per_node(), k = static_cast<int>(l.nodes.size());
  const int patterns = std::min(in.channels, g);
  const double share = in.bytes / patterns;
  const long long d = static_cast<long long>(steps_of(g, k));
  HopSum hops;
  auto hop = [&](int a, int b, double bytes) { hops.add(a, b, bytes / static_cast<double>(d)); };
  for (int r = 0; r < patterns; ++r) {
    for (int j = 0; j < k; ++j)
      for (int i = 0; i + 1 < g; ++i) {
        const int a = l.members[j][(r + i) % g], b = l.members[j][(r + i + 1) % g];
        hop(b, a, share);  // reduce toward the head
        hop(a, b, share);  // broadcast away from it
      }
    for (int tree = 0; tree < 2; ++tree)
      for (int i = 0; i < k; ++i) {
        const int parent = dtree_parent(tree, i, k);
        if (parent < 0) continue;
        const int c = l.members[i][r], q = l.members[parent][r];
        hop(c, q, share / 2);
        hop(q, c, share / 2);
      }
  }
  hops.flush(sink);
  out.phases.push_back(sink.phase("tree", d));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const double g = in.group.gpus_per_node, k = in.group.nodes();
  return {2.0 * (g - 1) / g * in.bytes, 2.0 * (k - 1) / (k * g) * in.bytes};
}

double steps(const ShapeInput& in) {
  return steps_of(in.group.gpus_per_node, in.group.nodes());
}

double span(const ShapeInput& in) {
  return in.bytes;
}

}  // namespace

extern const AlgorithmDef kTree{
    .name = "tree",
    .runs = all_reduce_only,
    .fits = fits,
    .needs = "the same GPUs on each of several nodes",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = span,
    .bundles = false,
    .ib_peak = dtree_ib_peak,
};

}  // namespace stepsim::net
