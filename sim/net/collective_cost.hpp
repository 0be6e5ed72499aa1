// Bytes a collective moves per GPU, split by link class (NVLink inside a node, InfiniBand across
// nodes), for the algorithm the topology implies. These are the closed forms the roofline uses
// and the oracles the simulated collectives are checked against.
//
// A group of n GPUs spans k nodes with g = n / k GPUs on each. S is the collective's buffer:
// the full vector for all-reduce, the gathered output for all-gather, the input for
// reduce-scatter, the total a GPU sends for all-to-all, the tokens x hidden bytes a GPU
// dispatches for dispatch/combine, what each GPU sends its successor for send_recv. Counts are
// bytes *sent* per GPU; the patterns are symmetric, so received bytes are equal and both link
// directions carry them. Each algorithm states its closed form in its file (algorithm/*.cpp);
// collective_bytes_per_gpu() takes the first of registry order that needs no cluster feature
// (hierarchical when the group spans several nodes with several GPUs on each, ring otherwise;
// direct for all-to-all; DeepEP for dispatch/combine), whose bytes equal a ring's and a tree's; the
// roofline asks the tuner (tuner.hpp) instead. Not modelled here: latency (α) terms, which the
// simulated collectives add.
#pragma once

#include <string_view>

namespace stepsim::net {

struct LinkBytes {
  double nvlink = 0.0;
  double ib = 0.0;
  LinkBytes& operator+=(const LinkBytes& o) {
    nvlink += o.nvlink;
    ib += o.ib;
    return *this;
  }
  LinkBytes operator*(double f) const { return {nvlink * f, ib * f}; }
  LinkBytes operator+(const LinkBytes& o) const { return {nvlink + o.nvlink, ib + o.ib}; }
};

enum class CollectiveOp {
  all_reduce,
  all_gather,
  reduce_scatter,
  all_to_all,
  broadcast,
  p2p,
  dispatch,
  combine,
  send_recv  // every GPU sends to the next of the group and receives from the previous
};
std::string_view to_string(CollectiveOp op);

struct GroupShape {
  int size = 1;           // n
  int gpus_per_node = 1;  // g; the group spans n / g nodes
  int nodes() const { return size / gpus_per_node; }
};

// The name of the algorithm `auto` runs `op` with on a uniform group of this shape.
std::string_view algorithm_for(CollectiveOp op, GroupShape group);

LinkBytes collective_bytes_per_gpu(CollectiveOp op, double bytes, GroupShape group,
                                   bool pxn = false);

// One point-to-point message of `bytes`.
LinkBytes p2p_bytes(double bytes, bool same_node);

struct NodeLimitedA2A {
  int top_k = 1;
  int max_nodes = 0;  // 0 = not node-limited
  GroupShape ep;      // the expert-parallel group
  int experts = 256;  // routed experts, spread evenly over the group
};

// Expected copies of one token sent per link class by a dispatch (or, reversed, a combine).
LinkBytes node_limited_copies_per_token(const NodeLimitedA2A& a2a);

// The distinct nodes (T) and GPUs (R) one token's top_k experts lie on, over an expert-parallel
// group of `nodes` nodes of `gpus_per_node` GPUs holding `experts` routed experts evenly (E/n
// per GPU). A token's experts are a uniform random subset (DeepEP's tests route by i.i.d.
// scores), so a node is missed with the hypergeometric probability C(E - E/k, top_k) / C(E, top_k):
// T = k·(1 - that), R likewise over the n GPUs (top-8 of 256: R = 5.29 over 8 GPUs, T = 1.99 over
// 2 nodes, 3.61 over 4). When the node limit binds (max_nodes < nodes) the router first picks
// max_nodes nodes by their best experts' scores and the top_k fall among those nodes' experts:
// T = min(max_nodes, top_k), R as above over the picked nodes' GPUs. With fewer experts than
// GPUs, draws with replacement: T = k·(1 - (1 - 1/k)^top_k).
double target_nodes_per_token(int top_k, int max_nodes, int nodes, int experts = 256);
double target_ranks_per_token(int top_k, int max_nodes, int nodes, int gpus_per_node,
                              int experts = 256);

}  // namespace stepsim::net
