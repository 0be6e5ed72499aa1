// Runs a planned collective on the flow network and measures it the way nccl-tests does.
//
// The plan runs as its TransferDag (transfer_dag.hpp) on one fresh network: its phases one after
// another, or overlapping chunk by chunk when the plan is cut into chunks. A phase's time is its
// span, from its first chunk's start to its last chunk's delivery (the spans of overlapping
// phases add up to more than the collective's time).
// algbw = S / time; busbw = algbw · 2(n-1)/n for all-reduce, · (n-1)/n for all-gather,
// reduce-scatter and all-to-all (dispatch/combine too), · 1 for broadcast and p2p.
// The bottleneck is the group (hw/link_group.hpp) of the link with the highest utilization,
// bytes(l) / (bandwidth(l) · time). Bytes per GPU over InfiniBand are those leaving through the
// group's NICs, divided by the group size (by 1 for p2p, which has one sender).
// Per phase: its time (all repetitions), the bytes each GPU sends in it (over NVLink and NICs
// together), those bytes over its time, and the group of its most utilized link. For the ring
// phases of a hierarchical collective that rate is nccl-tests' busbw of the phase's own
// sub-collective: the NVLink phases run at the NVLink rate, the inter-node one at the NIC's.
#pragma once

#include <string>
#include <vector>

#include "sim/hw/flow_network.hpp"
#include "sim/hw/link_group.hpp"
#include "sim/net/collective_plan.hpp"

namespace stepsim::net {

struct PhaseTiming {
  std::string name;
  engine::Time elapsed;  // from its first chunk's start to its last chunk's delivery
  long long repeat = 1;
  double sent_per_gpu = 0.0;  // bytes, all repetitions
  double busbw = 0.0;         // bytes/s
  hw::LinkGroup bottleneck = hw::LinkGroup::nvlink;
  double bottleneck_utilization = 0.0;
  // The span over the steps: one step's time when the phase ran alone (one chunk); with chunks
  // it includes the waits between them.
  engine::Time step() const { return engine::Time::ps(elapsed.picoseconds() / repeat); }
};

// When one node of the TransferDag ran: a chunk through phase `phase`.
struct NodeWindow {
  int phase = 0;
  engine::Time start, finish;
};

struct CollectiveResult {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string algorithm;
  double bytes = 0.0;
  int group_size = 0;
  engine::Time time;
  double algbw = 0.0;  // bytes/s
  double busbw = 0.0;  // bytes/s
  hw::LinkGroup bottleneck = hw::LinkGroup::nvlink;
  double bottleneck_utilization = 0.0;
  double ib_bytes_per_gpu = 0.0;  // data, not wire bytes (Phase::payload)
  double nvlink_bytes_per_gpu = 0.0;
  std::uint64_t events = 0;
  std::uint64_t flows = 0;  // simulated (bundled) flows
  std::vector<PhaseTiming> phases;
  int chunks = 1;         // the DAG's nodes per phase
  int stream_chunks = 1;  // the plan's chunks
  std::string protocol;   // the plan's (protocol.hpp)
  int channels = 1;
  double predicted_s = 0.0;       // the tuner's closed-form estimate
  std::vector<NodeWindow> nodes;  // per DAG node
};

CollectiveResult run_collective(const CollectivePlan& plan, double bytes, int group_size,
                                const hw::Topology& topo, hw::Fidelity fidelity,
                                const engine::RunControl* control = nullptr);

// Its time alone, as run_collective() gives it, without the per-phase and per-link accounting
// (routing every transfer once more): what the latency of a 1-byte run needs.
engine::Time collective_time(const CollectivePlan& plan, const hw::Topology& topo,
                             hw::Fidelity fidelity, const engine::RunControl* control = nullptr);

double bus_factor(CollectiveOp op, int n);

}  // namespace stepsim::net
