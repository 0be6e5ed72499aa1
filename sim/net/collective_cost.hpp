// Bytes a collective moves per GPU, split by link class (NVLink inside a node, InfiniBand across
// nodes), for the algorithm the topology implies. These are the closed forms the roofline uses
// and the oracles the simulated collectives are checked against.
//
// A group of n GPUs spans k nodes with g = n / k GPUs on each. S is the collective's buffer:
// the full vector for all-reduce, the gathered output for all-gather, the input for
// reduce-scatter, the total a GPU sends for all-to-all. Counts are bytes *sent* per GPU; the
// patterns are symmetric, so received bytes are equal and both link directions carry them.
//
//  ring (k = 1, or g = 1): each GPU sends (n-1)/n·S per all-gather/reduce-scatter pass, 2 passes
//    for all-reduce. With k > 1 one ring hop in g crosses nodes; NCCL runs one ring per NIC with
//    the crossing point rotated, so on average a GPU sends 1/g of its ring bytes over its NIC.
//  hierarchical (k > 1 and g > 1), the two-level scheme (reduce-scatter inside the node over
//    NVLink, all-reduce across nodes, each GPU on its own NIC, all-gather inside the node):
//    all-gather:     IB (k-1)/k · S/g          then NVLink (g-1)/g · S
//    reduce-scatter: NVLink (g-1)/g · S        then IB (k-1)/k · S/g
//    all-reduce:     NVLink 2(g-1)/g · S  and  IB 2(k-1)/k · S/g
//  all-to-all (direct): S/n to every peer: (g-1)/n·S over NVLink, (n-g)/n·S over IB; on a
//    multi-plane fabric the part for peers on other planes, (g-1)/g of it, crosses NVLink first
//    (PXN) and is added to NVLink.
//  node-limited all-to-all (DeepSeek's dispatch/combine): a token goes once over IB to each of its
//    T target nodes (at most max_nodes), then over NVLink to the GPUs holding its experts there.
//    With e = EP GPUs per node and k_ep = EP nodes, per token:
//      T  = min(max_nodes, top_k)                  (the limit binds, max_nodes < k_ep: every chosen
//                                                   node gets an expert)
//      T  = k_ep·(1 - (1 - 1/k_ep)^top_k)          (otherwise: expected distinct nodes)
//      IB copies = T·(k_ep-1)/k_ep,   NVLink copies = top_k·(e-1)/e
//    Copies to one GPU holding two of the token's experts are not merged (an upper estimate).
// Not modelled here: latency (α) terms, which the simulated collectives add, and switch
// in-network reduction (SHARP/NVLS).
#pragma once

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

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast };
enum class Algorithm { ring, hierarchical };

struct GroupShape {
  int size = 1;           // n
  int gpus_per_node = 1;  // g; the group spans n / g nodes
  int nodes() const { return size / gpus_per_node; }
};

// The algorithm used on this group: hierarchical when it spans several nodes with several GPUs
// on each, ring otherwise.
Algorithm algorithm_for(GroupShape group);

LinkBytes collective_bytes_per_gpu(Collective op, double bytes, GroupShape group,
                                   bool multi_plane = false);

// One point-to-point message of `bytes`.
LinkBytes p2p_bytes(double bytes, bool same_node);

struct NodeLimitedA2A {
  int top_k = 1;
  int max_nodes = 0;  // 0 = not node-limited
  GroupShape ep;      // the expert-parallel group
};

// Expected copies of one token sent per link class by a dispatch (or, reversed, a combine).
LinkBytes node_limited_copies_per_token(const NodeLimitedA2A& a2a);

// T above: the distinct nodes one token's top_k experts lie on, over an expert-parallel group of
// `nodes` nodes. When the node limit binds (max_nodes < nodes) the router first picks max_nodes
// nodes by their best experts' scores, so each picked node receives one of the top_k:
// T = min(max_nodes, top_k). Otherwise the top_k experts fall uniformly over all nodes and T is the
// expected number of distinct ones, nodes·(1 - (1 - 1/nodes)^top_k) (1.99 for top-8 over 2 nodes,
// not 2; 3.6 over 4).
double target_nodes_per_token(int top_k, int max_nodes, int nodes);

}  // namespace stepsim::net
