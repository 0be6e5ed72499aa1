// A collective algorithm: how a collective runs on a group, as phases of point-to-point
// transfers for the flow network (collective_plan.hpp), and the bytes it moves per GPU and link
// class, in closed form, for the roofline (collective_cost.hpp) and the tuner (tuner.hpp). One
// file per algorithm, each defining one AlgorithmDef, listed once in registry.cpp. `auto` lets
// the tuner pick among those that run the operation, fit the group and find the features they
// need on the cluster (NVLS, SHARP); the roofline takes the first of registry order that needs no
// feature. The closed form and the plan are two views of one algorithm; a test checks they move
// the same bytes.
// Pipelined ("stream") phases: an algorithm whose hops all work at once on every chunk (a tree,
// NVLS) plans one phase of `steps` repetitions, each transfer carrying its hop's total over the
// steps: the phase then pays the latency of every step on the critical path once and moves each
// hop's bytes concurrently, as a pipeline does once full.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/net/collective_cost.hpp"
#include "sim/net/group_layout.hpp"

namespace stepsim::net {

struct PlanInput {
  CollectiveOp op;
  double bytes;  // S, as collective_cost.hpp defines it per operation
  const std::vector<int>& group;
  const GroupLayout& layout;
  const hw::Topology& topo;
  const PlanOptions& options;
  int channels = 1;  // the tuner's (or the user's) channel count
};

struct ShapeInput {
  CollectiveOp op;
  double bytes;
  GroupShape group;
  bool pxn = false;  // PXN: inter-node traffic to another rail or plane crosses NVLink first
  int top_k = 8, max_nodes = 0;
  int experts = 256;
};

enum class Feature { none, nvls, sharp };

// Shared parts of the definitions. `runs`: the all-reduce alone; the three ring-shaped
// operations.
inline bool all_reduce_only(CollectiveOp op) {
  return op == CollectiveOp::all_reduce;
}
inline bool ring_ops(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather ||
         op == CollectiveOp::reduce_scatter;
}
// `fits`: any group of two or more GPUs (the default); several nodes with the same g > 1 GPUs on
// each.
inline bool any_group(GroupShape, bool) {
  return true;
}
inline bool several_nodes(GroupShape s, bool uniform) {
  return uniform && s.nodes() > 1 && s.gpus_per_node > 1;
}
// `steps`: the bytes go in one step (the default).
inline double one_step(const ShapeInput&) {
  return 1.0;
}
// `span`: a hop moves all S; one GPU's share of S over the group (n) or over its node (g); 0, not
// cut by the tuner (the algorithm cuts itself, or uses its own buffers).
inline double whole_span(const ShapeInput& in) {
  return in.bytes;
}
inline double group_shard_span(const ShapeInput& in) {
  return in.bytes / in.group.size;
}
inline double node_shard_span(const ShapeInput& in) {
  return in.bytes / in.group.gpus_per_node;
}
inline double no_span(const ShapeInput&) {
  return 0.0;
}

struct AlgorithmDef {
  std::string_view name;  // as --algorithm and reports spell it
  bool (*runs)(CollectiveOp op) = nullptr;
  // Whether it can run on such a group (n >= 2), and what that asks of a group, for messages.
  bool (*fits)(GroupShape shape, bool uniform) = any_group;
  std::string_view needs = "at least 2 GPUs";
  // Appends its phases to `out`; transfers the algorithm generates pair by pair go through
  // `sink` (bundled as they come), the others are bundled afterwards.
  void (*plan)(const PlanInput& in, TransferSink& sink, CollectivePlan& out) = nullptr;
  // For an algorithm whose transfers, and so their bundles, are the same at every size but for
  // their bytes: gives the transfers of `out`, a plan's at another size (their wire factor still
  // applied), the bytes and payload share `plan` would give them for `in` (replan()). Null:
  // planned afresh at every size.
  void (*resize)(const PlanInput& in, CollectivePlan& out) = nullptr;
  LinkBytes (*bytes_per_gpu)(const ShapeInput& in) = nullptr;
  // Steps one byte goes through from start to end: the latencies the tuner counts.
  double (*steps)(const ShapeInput& in) = one_step;
  // The bytes one hop moves per step over all channels together, which chunks cut up
  // (0: the algorithm is not cut by the tuner).
  double (*span)(const ShapeInput& in) = nullptr;
  Feature feature = Feature::none;
  bool nccl = true;          // runs with NCCL's protocols; otherwise its own (no protocol cost)
  bool simple_only = false;  // NCCL runs it with the Simple protocol alone (NVLS)
  bool nvls_rate = false;    // its NVLink bytes move at the NVLS rate, not the link's
  // Whether its transfers are translations of one another by whole nodes, as bundling assumes
  // (collective_plan.hpp); a tree's inner nodes carry more than its leaves, so it is not.
  bool bundles = true;
  // Whether the tuner considers it: NCCL's algorithms are (ring, tree, NVLS, NVLS-tree, CollNet);
  // a two-level hierarchy is not one, so `auto` never picks it.
  bool tuned = true;
  // The busiest GPU's InfiniBand bytes over the average (bytes_per_gpu), for the tuner; null: 1.
  double (*ib_peak)(GroupShape shape) = nullptr;
  // Of `ib_bytes` it sends per GPU, those that must leave a block of `block_nodes` nodes (a leaf
  // switch's, or a pod's), for the roofline's uplink bound; null: none counted (rings and trees,
  // whose hops stay mostly under one leaf, keep the bound a lower bound).
  double (*leaving)(double ib_bytes, GroupShape shape, int block_nodes) = nullptr;
  // How reports name what it moves: "DeepEP dispatch/combine"; empty: its name.
  std::string_view display = {};
};

// The registered algorithms, in order of preference.
const std::vector<const AlgorithmDef*>& algorithms();
const AlgorithmDef* find_algorithm(std::string_view name);
// Whether the cluster has what `a` needs.
bool available(const AlgorithmDef& a, const spec::ClusterSpec& c);
// The algorithm for `op` on a group of this shape: the named one, or with "auto" the first that
// runs `op`, fits and needs no cluster feature. Throws engine::UserError (located at
// --algorithm) for an unknown name or one that cannot run this collective on this group, or
// (with a cluster) needs a feature the cluster lacks.
const AlgorithmDef& choose_algorithm(CollectiveOp op, GroupShape shape, bool uniform,
                                     std::string_view requested,
                                     const spec::ClusterSpec* cluster = nullptr);
// Transfers of several channels between the same two GPUs, summed into one before they reach the
// sink (which bundles translations across nodes, not repeats on one link).
class HopSum {
 public:
  void add(int src, int dst, double bytes) { bytes_[{src, dst}] += bytes; }
  void flush(TransferSink& sink) {
    for (const auto& [k, b] : bytes_) sink.add({k.first, k.second, b});
    bytes_.clear();
  }

 private:
  std::map<std::pair<int, int>, double> bytes_;
};

// NVLS moves a GPU's multimem traffic at the cluster's NVLS rate: on the NVLink links it is
// planned as wire bytes, this factor (the link's rate over the NVLS rate) times the payload.
inline double nvls_wire_factor(const hw::Topology& t) {
  const auto& c = t.spec();
  return c.nvls_bandwidth > 0.0 ? c.nvlink.bandwidth / c.nvls_bandwidth : 1.0;
}
// The NVSwitch's reduce-scatter (multimem.ld_reduce) and all-gather (multimem.st) of S over the g
// GPUs of one node, as GPU-to-GPU transfers with the same load on every GPU's NVLink port: each
// GPU sends S + S/g and receives S/g + S, spread over its g-1 peers.
void add_nvls_node(const std::vector<int>& node, double bytes, double steps, double wire,
                   TransferSink& sink);
// NCCL's double binary tree over n ranks (src/graph/trees.cc): tree 0 is a binary tree where
// rank r's parent clears its lowest set bit b and sets 2b ((r ^ b) | 2b, or r ^ b beyond n),
// rooted at 0 with one child; tree 1 is the same over the ranks mirrored (n-1-r) when n is even
// or shifted by one when odd, so that a rank inner in one tree is a leaf in the other. The
// parent of `rank` in `tree`, -1 for a root.
int dtree_parent(int tree, int rank, int n);
// Across k > 2 nodes a double binary tree's inner node sends 2·S/g per NIC, k/(k-1) times the
// average (every node sends S/g on 2 nodes).
inline double dtree_ib_peak(GroupShape s) {
  const double k = s.nodes();
  return k > 2 ? k / (k - 1) : 1.0;
}
// Helpers for the closed forms.
inline double log2_ceil(double k) {
  double d = 0;
  for (double v = 1; v < k; v *= 2) ++d;
  return d;
}
// "auto, hierarchical, ring, ..." for hints and help.
std::string algorithm_names();

}  // namespace stepsim::net
