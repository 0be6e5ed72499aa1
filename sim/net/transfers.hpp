// A planned collective as data: phases of point-to-point transfers, with the protocol's costs
// and the options that chose them. collective_plan.hpp makes them (and says how transfers are
// bundled), transfer_dag.hpp runs them, and the algorithms (algorithm/) fill them.
#pragma once

#include <memory>
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
  // A bundle whose members climb to several spines: the share of them at each spine index of a
  // plane (its route spreads over those spines, hw::Topology::route); null: its own route.
  std::shared_ptr<const std::vector<double>> spread = nullptr;
  // Its weight on a link of class `c`: core_weight, agg_weight, or 1.
  double weight_on(hw::LinkClass c) const {
    return c == hw::LinkClass::ib_core  ? core_weight
           : c == hw::LinkClass::ib_agg ? agg_weight
                                        : 1.0;
  }
};

// The route a transfer's flow takes: its own, or spread over its bundle's spines; `reverse`:
// from its destination back to its source (a spread bundle reversed climbs to the same spines:
// the members' shares follow from the group's shape, which the reversed transfers share).
inline void route_of(const hw::Topology& t, const Transfer& tr, hw::Route& r,
                     bool reverse = false) {
  const std::span<const double> spread =
      tr.spread ? std::span<const double>(*tr.spread) : std::span<const double>();
  t.route(reverse ? tr.dst : tr.src, reverse ? tr.src : tr.dst, spread, r);
}

struct Phase {
  std::string name;
  std::vector<Transfer> transfers;
  long long repeat = 1;
  // Steps in which each transfer carries its bytes (for byte counts): all of them, except in a
  // pipelined chain, whose fill and drain steps the plan times as full ones.
  long long payload_steps() const { return payload_repeat > 0 ? payload_repeat : repeat; }
  long long payload_repeat = 0;  // 0: `repeat`
  // Its transfers came bundled out of a TransferSink (group_layout.hpp): bundle() has nothing to
  // do on them.
  bool bundled = false;
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
}  // namespace stepsim::net
