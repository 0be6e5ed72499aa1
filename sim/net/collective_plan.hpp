// Collectives planned as phases of point-to-point transfers, for the flow network to execute.
// The algorithm, protocol, channels and chunks are the tuner's choice (tuner.hpp) for what
// PlanOptions leaves at auto.
//
// A phase is a set of concurrent transfers, repeated `repeat` times back to back (the identical
// steps of a ring); phases run one after another, or chunk by chunk (transfer_dag.hpp). The
// algorithms are one file each under algorithm/, registered in algorithm/registry.cpp;
// `PlanOptions::algorithm` names one or is "auto" (the tuner's pick).
// Bundling: transfers that are translations of one another by whole nodes (same local source
// and destination index, same node offset, and for those that climb to a spine the same spine
// index) are simulated once, with a multiplicity. All-to-alls are bundled as their pairs are
// generated (O(1) each, never held), so a world all-to-all on 16,384 GPUs (32 spines per plane)
// keeps about g²·k·(1 + 32) = 4.1 M transfers for k nodes of g GPUs instead of 268 M.
// Members of a bundle use their own GPU, NIC and access links, but those that leave one leaf share
// its uplinks to the spines. A representative therefore weighs on its leaf-spine links as all the
// members that leave its leaf: core_weight = m/L for m members over the L leaves the group's nodes
// occupy (at the GPU index whose NIC the transfer leaves by; members assumed spread evenly over
// them). Bundling by spine index puts the representatives on a leaf's S uplinks as their members
// are, so each uplink carries its share of the whole load: an oversubscribed fabric slows a
// bundled collective as it slows the unbundled one (a world all-to-all on 64 nodes at 4:1: 42.95 ms
// both ways; without the spine index in the key, every representative of a 512-GPU all-to-all on
// 2048 nodes climbed to spine 0, 8x too slow). By symmetry every leaf sends what it receives; the
// representatives, all sent from the group's first nodes, load their source leaf's uplinks fully
// and the destination downlinks only in part, which a symmetric pattern does not notice. It ignores
// the unevenness of collisions, which only unbundled runs show. Clusters with faults are never
// bundled. Between the pods of a clos3 a bundle holds only members from one pod to one pod that
// climb through the same spine index (the destination's leaf port mod the spines): they share their
// aggregation links exactly, so agg_weight = m, and they spread over the leaves of their source
// pod, core_weight = m·P/L for the P pods the group's nodes occupy: up to 2P times the bundles
// that climb within a pod. A world all-to-all across pods slows by the aggregation tier's capacity,
// unbundled exactly, bundled 4 % more on 4 pods of 4 nodes (the representatives crowd the first
// nodes' NICs).
#pragma once

#include <string>
#include <vector>

#include "sim/hw/topology.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/net/protocol.hpp"

namespace stepsim::net {

struct Transfer {
  int src = 0, dst = 0;
  double bytes = 0.0;
  double multiplicity = 1.0;
  // A bundle's load on the leaf-spine links of its representative's route, per unit of its rate:
  // the members that leave the representative's leaf (see bundling above).
  double core_weight = 1.0;
  // The share of `bytes` (wire bytes) that is data: the protocol's payload share, over the NVLS
  // or DeepEP rate factors that inflate NVLink bytes; 0 for DeepEP's notify (counts, not data).
  double payload = 1.0;
  // As core_weight, on the aggregation links of a clos3, for the members that leave the pod.
  double agg_weight = 1.0;
  // Its weight on a link of class `c`: core_weight, agg_weight, or 1.
  double weight_on(hw::LinkClass c) const {
    return c == hw::LinkClass::ib_core  ? core_weight
           : c == hw::LinkClass::ib_agg ? agg_weight
                                        : 1.0;
  }
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
  std::string algorithm;  // a registered algorithm's name (algorithm/registry.cpp)
  std::vector<Phase> phases;
  int chunks = 1;  // the data cut into chunks that stream through the phases (transfer_dag.hpp)
  Protocol protocol = Protocol::simple;
  int channels = 1;
  // Transfers carry wire bytes (payload over the protocol's payload share); this is the factor.
  double wire_factor = 1.0;
  double predicted_s = 0.0;  // the tuner's closed-form estimate (tuner.hpp)
  // The protocol's costs (protocol.hpp): per step on NVLink and across nodes, once per collective.
  double nvlink_sync_s = 0.0, net_sync_s = 0.0, base_s = 0.0;
  // Time before the data moves that is the algorithm's own (DeepEP's notify), after base_s.
  double setup_s = 0.0;
};

struct PlanOptions {
  std::string algorithm = "auto";  // or a registered algorithm's name (algorithm/algorithm.hpp)
  std::string protocol = "auto";   // or simple, ll128, ll (protocol.hpp)
  int channels = 0;                // 0: the tuner's choice
  int chunks = 0;                  // chunks streaming through the phases; 0: the tuner's choice
  double chunk_bytes = 0.0;        // payload of one chunk per channel; 0: the protocol's step
  bool bundle = true;
  int top_k = 8;      // dispatch/combine
  int max_nodes = 4;  // dispatch/combine; 0 = not node-limited
  int experts = 256;  // dispatch/combine: routed experts, spread evenly over the group
  int comm_sms = 0;   // dispatch/combine: SMs the expert-parallel kernels hold (0: as measured)
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
