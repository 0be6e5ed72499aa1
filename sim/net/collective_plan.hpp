// Collectives planned as phases of point-to-point transfers, for the flow network to execute.
//
// A phase is a set of concurrent transfers, repeated `repeat` times back to back (the identical
// steps of a ring); phases run one after another. Algorithms, for a group of n GPUs on k nodes
// with g = n/k on each, buffer S (conventions of collective_cost.hpp):
//   ring all-gather / reduce-scatter: n-1 steps, every GPU sends S/n to the next in rank order;
//     all-reduce: 2(n-1) such steps. Time (analytic) = steps · (α + S/(n·β)).
//   hierarchical (k > 1, g > 1): all-reduce = intra-node ring reduce-scatter (g-1 steps of S/g),
//     per-plane ring all-reduce across nodes (2(k-1) steps of S/(g·k)), intra-node all-gather;
//     all-gather = inter-node ring (k-1 steps of S/n) then intra-node (g-1 steps of S/g);
//     reduce-scatter the mirror image.
//   all-to-all (direct): every GPU sends S/n to every other GPU at once.
//   dispatch / combine (DeepSeek's node-limited all-to-all, combine the reverse): every GPU sends
//     S·T/k to the GPU of its own index on each other node (T target nodes per token:
//     min(max_nodes, top_k) when the limit binds, else k(1-(1-1/k)^top_k); collective_cost.hpp),
//     and every GPU forwards S·top_k/g to each other GPU of its node, concurrently (DeepEP
//     pipelines the two). S is the tokens × hidden bytes a GPU dispatches.
//   broadcast: a pipelined chain in rank order, S cut into C chunks: n-2+C steps in which every
//     hop carries S/C, C = √((n-2)·S/(α·β)) (rounded, at least 1) minimizing (n-2+C)(α + S/(Cβ))
//     with α and β the latency and bandwidth of the chain's slowest hop.
//   p2p: one transfer from the group's first GPU to its last.
// Bundling: transfers that are translations of one another by whole nodes (same local source
// and destination index, same node offset, same leaf-crossing) are simulated once, with a
// multiplicity. All-to-alls are bundled as their pairs are generated (O(1) each, never held), so
// a world all-to-all on 16,384 GPUs keeps about 2·g²·k transfers for k nodes of g GPUs.
// Members of a bundle use their own GPU, NIC and access links, but those that leave one leaf share
// its uplinks to the spines. A representative therefore weighs on its leaf-spine links as all the
// members that leave its leaf: core_weight = m/L for m members over the L leaves the group's nodes
// occupy (at the GPU index whose NIC the transfer leaves by; members assumed spread evenly over
// them). ECMP spreads the representatives over a leaf's S uplinks as it would spread the members,
// so each uplink carries its share of the whole load: an oversubscribed fabric slows a bundled
// collective as it slows the unbundled one (a world all-to-all on 64 nodes at 4:1: 42.95 ms both
// ways). By symmetry every leaf sends what it receives; the representatives, all sent from the
// group's first nodes, load their source leaf's uplinks fully and the destination downlinks only
// in part, which a symmetric pattern does not notice. It ignores the unevenness of ECMP collisions,
// which only unbundled runs show. Clusters with faults are never bundled.
#pragma once

#include <string>
#include <vector>

#include "sim/hw/topology.hpp"

namespace stepsim::net {

enum class CollectiveOp {
  all_reduce,
  all_gather,
  reduce_scatter,
  all_to_all,
  broadcast,
  p2p,
  dispatch,
  combine
};
enum class AlgorithmChoice { automatic, ring, hierarchical };

std::string_view to_string(CollectiveOp op);

struct Transfer {
  int src = 0, dst = 0;
  double bytes = 0.0;
  double multiplicity = 1.0;
  // A bundle's load on the leaf-spine links of its representative's route, per unit of its rate:
  // the members that leave the representative's leaf (see bundling above).
  double core_weight = 1.0;
};

struct Phase {
  std::string name;
  std::vector<Transfer> transfers;
  long long repeat = 1;
  // Steps in which each transfer carries its bytes (for byte counts): all of them, except in a
  // pipelined chain, whose fill and drain steps the plan times as full ones.
  long long payload_steps() const { return payload_repeat > 0 ? payload_repeat : repeat; }
  long long payload_repeat = 0;  // 0: `repeat`
};

struct CollectivePlan {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string algorithm;  // "ring", "hierarchical", "direct", "node-limited", "chain", "p2p"
  std::vector<Phase> phases;
};

struct PlanOptions {
  AlgorithmChoice algorithm = AlgorithmChoice::automatic;
  bool bundle = true;
  int top_k = 8;      // dispatch/combine
  int max_nodes = 4;  // dispatch/combine; 0 = not node-limited
};

// `group`: global GPU ranks, sorted, without duplicates.
CollectivePlan plan_collective(CollectiveOp op, double bytes, const std::vector<int>& group,
                               const hw::Topology& topo, const PlanOptions& options = {});

// Transfers the plan of `op` over `group` will hold at once (its largest phase, after bundling),
// estimated from the group's size and node count before planning: for memory checks.
double estimate_transfers(CollectiveOp op, const std::vector<int>& group, const hw::Topology& topo,
                          const PlanOptions& options = {});

// A group from text: "world", "node:N", "nodes:A-B", "plane:P", "ranks:A-B" or "A,B,C".
// Throws engine::UserError (located at `where`) on a malformed or out-of-range group.
std::vector<int> parse_group(const std::string& text, const hw::Topology& topo,
                             const std::string& where);

}  // namespace stepsim::net
