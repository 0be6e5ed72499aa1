// A cluster as its specification: nodes of identical devices, an NVLink island per node, and a
// scale-out fabric of NICs and switches.
//
// Link bandwidths are per direction and per GPU; `bandwidth` is the achievable (measured) figure
// used for timing, `peak_bandwidth` the datasheet one. The fabric kinds:
//  - none: a single node, no NICs.
//  - multi_plane_fat_tree: DeepSeek's: NIC i of every node on plane i; each plane is a two-layer
//    fat-tree of `switch_ports`-port switches (leaves with ports/2 down, ports/2 up).
//  - rail_fat_tree: one plane; NIC i of every node on rail (leaf group) i, spines shared.
//  - clos3: a three-layer Clos (Meta's RoCE clusters, Llama 3 §3.3.1): every NIC of a node on
//    the node's rack switch (leaf: `switch_ports`/2 NIC ports down, so ports/2/gpus_per_node
//    nodes), `leaves_per_pod` leaves per pod, each leaf linked to the pod's ports/2 spines
//    ("cluster switches"); spine s of every pod linked to aggregation plane s, whose capacity
//    is the pod's spine capacity / `pod_oversubscription`.
//  - dual_plane: Alibaba HPN's (Qian et al., Alibaba HPN, SIGCOMM'24): rail-optimized, two
//    planes; every NIC has two ports of half its bandwidth, port p cabled to a leaf ("ToR") of
//    plane p, so each node hangs off two ToRs that are not stacked (dual-ToR). Each plane is a
//    rail fat-tree of its own (NIC i of every node on rail i's leaves, spines shared by the
//    plane's rails) and a byte never crosses planes. `nic` is the whole NIC (both ports).
// `oversubscription` (>= 1) divides the leaf's uplink bandwidth: traffic leaving a leaf gets
// nic_bandwidth / oversubscription in the worst case.
// The switch-level graph, routes and faults are built from this spec by the topology builder.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/spec/device.hpp"
#include "sim/spec/faults.hpp"
#include "sim/spec/names.hpp"

namespace stepsim::spec {

struct LinkSpec {
  double bandwidth = 0.0;       // bytes/s per direction, achievable
  double peak_bandwidth = 0.0;  // bytes/s per direction, datasheet
  double latency_s = 0.0;

  friend bool operator==(const LinkSpec&, const LinkSpec&) = default;
};

enum class FabricKind { none, multi_plane_fat_tree, rail_fat_tree, clos3, dual_plane };
inline constexpr Names<FabricKind, 5> kFabricKinds{
    {{"none", "none"},
     {"multi_plane_fat_tree", "multi-plane fat-tree"},
     {"rail_fat_tree", "rail-optimized fat-tree"},
     {"clos3", "three-layer Clos"},
     {"dual_plane", "dual-plane rail fabric with dual ToRs"}}};

// How a switch picks among equal uplinks for a flow:
//  - destination: by the destination's port (InfiniBand's linear forwarding tables as OpenSM's
//    fat-tree routing fills them): a shift pattern meets no collision, routes are translations of
//    one another, which the symmetry classes and bundling rely on;
//  - ecmp_hash: by a hash of the flow (source and destination GPU), as Ethernet ECMP hashes a
//    five-tuple: two flows may land on one uplink while another idles. "ECMP ... places flows
//    randomly based on the hashes on the five-tuple ... ECMP rendered poor performance for the
//    training workload due to the low flow entropy" (Gangidi et al., RDMA over Ethernet for
//    Distributed AI Training at Meta Scale, SIGCOMM'24; Meta engineering blog 2024-08-05); Alibaba
//    HPN, SIGCOMM'24 §2.2, on hash polarization. Every cell is simulated on its own and nothing
//    is bundled (routes are no longer translations).
enum class Routing { destination, ecmp_hash };
inline constexpr Names<Routing, 2> kRoutings{{{"destination"}, {"ecmp_hash", "ECMP hash"}}};

struct FabricSpec {
  FabricKind kind = FabricKind::none;
  int planes = 1;
  int switch_ports = 64;
  double oversubscription = 1.0;
  LinkSpec nic;                  // one NIC per GPU; latency NIC to NIC under one leaf
  double spine_latency_s = 0.0;  // added when a route goes up to a spine and down again
  bool sharp = false;            // the switches reduce in the network (SHARP)
  Routing routing = Routing::destination;
  // clos3 only: leaves per pod, the aggregation tier's oversubscription, and the latency a route
  // adds when it crosses pods.
  int leaves_per_pod = 0;
  double pod_oversubscription = 1.0;
  double agg_latency_s = 0.0;

  // Whether traffic to a GPU of another node at another local index first crosses NVLink to the
  // source node's GPU at that index and leaves by its NIC (NCCL's PXN, on by default since NCCL
  // 2.12: NCCL_PXN_DISABLE=0, NCCL environment variables docs): on a multi-plane fabric, where
  // the planes never meet, and on a dual-plane one, rail-optimized as HPN runs it (SIGCOMM'24).
  // A rail fat-tree is timed without it: its rails meet at the spines.
  bool pxn() const {
    return kind == FabricKind::multi_plane_fat_tree || kind == FabricKind::dual_plane;
  }

  // Nodes (hosts) under one leaf switch: half its ports face down, one per node (one plane or
  // rail), or, in a clos3, one per NIC of the node.
  int nodes_per_leaf(int gpus_per_node) const {
    const int down = switch_ports > 1 ? switch_ports / 2 : 1;
    return kind == FabricKind::clos3 ? std::max(1, down / gpus_per_node) : down;
  }

  friend bool operator==(const FabricSpec&, const FabricSpec&) = default;
};

// GPU-to-GPU performance variability (hw/variability.hpp): each GPU computes at a speed drawn
// once from `seed`, its time a factor 1 + gpu_spread·z with z standard normal, and each kernel's
// duration varies by kernel_jitter around it. Off when both are 0. Both cost time only: a group
// runs at its slowest member's pace, and a collective waits for its last member, so growing
// either never makes the step faster (for one seed, when every group has a member slower than
// the mean). gpu_spread 0.5 (the most accepted) puts about 1 GPU in 44 past twice the nominal
// time, and floors the fastest at half of it; kernel_jitter j adds, before each collective of n
// members, e_n·j·sqrt(Σ t_k²) over the kernels since the previous one (e_8 = 1.42; at j = 0.5, at
// most 0.71 of their time). The seed buys nothing: another seed is another fleet of the same
// spread.
struct VariabilitySpec {
  std::uint64_t seed = 0;
  double gpu_spread = 0.0;     // relative standard deviation of a GPU's compute time
  double kernel_jitter = 0.0;  // relative standard deviation of one kernel's duration
  std::string source;          // where the spread comes from

  friend bool operator==(const VariabilitySpec&, const VariabilitySpec&) = default;
};

// Where the nodes sit under the leaves. Node n (GPUs n·gpus_per_node onwards: the numbering the
// layout's rank -> GPU map uses) occupies slot slot_of(n) of the fabric: leaf slot / nodes per
// leaf, at port slot mod nodes per leaf.
//  - packed: slot n, consecutive nodes fill a leaf before the next (the default);
//  - spread: round-robin over the leaves, consecutive nodes on different leaves (a scheduler that
//    hands out free nodes wherever they are; neighbouring ranks then cross the spines);
//  - zones: round-robin over a clos3's pods (its zones), packed within each: consecutive nodes in
//    different zones, so neighbouring ranks cross the aggregation tier;
//  - list: slots given one per node (from a scheduler's allocation, or by hand).
enum class Placement { packed, spread, zones, list };
inline constexpr Names<Placement, 4> kPlacements{{{"packed", "leaf by leaf"},
                                                  {"spread", "round-robin over the leaves"},
                                                  {"zones", "round-robin over the pods"},
                                                  {"list", "slot by slot as listed"}}};

struct ClusterSpec {
  std::string name;
  DeviceSpec device;
  int nodes = 1;
  int gpus_per_node = 8;
  LinkSpec nvlink;
  // NVLink SHARP: the NVSwitch reduces and multicasts (multimem operations), at this achievable
  // rate per GPU and direction; 0: the switch cannot (no NVLS).
  double nvls_bandwidth = 0.0;
  // DeepEP's normal kernels: the NVLink rate their copies reach, measured with `deepep_sms` SMs
  // (net/algorithm/deepep.cpp); 0: the link's rate.
  double deepep_nvlink_bandwidth = 0.0;
  int deepep_sms = 0;
  FabricSpec fabric;
  std::vector<FaultSpec> faults;
  VariabilitySpec variability;
  std::string device_file;     // the device file it was read from, "" when written inline
  std::string placement_file;  // the file its listed placement was read from, or ""
  Placement placement = Placement::packed;
  std::vector<int> slots;  // per node, its slot (Placement::list; filled for spread and zones)

  int world_size() const { return nodes * gpus_per_node; }
  int slot_of(int node) const { return slots.empty() ? node : slots[node]; }
};

// What jobs on one fabric must share: the fields in which `b` differs from `a`, each "key (b's
// value, not a's)" where the field is one number or word, else "key", by content (names, node
// counts, faults and where the files were read from are not compared).
std::vector<std::string> fabric_differences(const ClusterSpec& a, const ClusterSpec& b);

// The slots of `placement` for the cluster's nodes (empty for packed).
std::vector<int> placement_slots(const ClusterSpec& c, Placement placement);

// Switch counts implied by a fabric (hw/topology.hpp builds them): planes, leaves and spines per
// plane.
struct FabricShape {
  int planes = 0;
  int leaves_per_plane = 0;
  int spines_per_plane = 0;  // in a clos3, per pod: the spines a leaf links to
  int pods = 1;              // clos3: pods of leaves_per_pod leaves
  int aggs = 0;              // clos3 with several pods: aggregation planes, one per spine index
  int spines() const { return spines_per_plane * pods; }  // per plane
};
FabricShape fabric_shape(const ClusterSpec& c);

// The port of a GPU's NIC on its leaf, which picks the spine a route to it climbs through (the
// port modulo the spines, hw/topology.hpp): its node's place under the leaf, and in a clos3, where
// all of a node's NICs share one leaf, its index in the node too.
int leaf_port(const ClusterSpec& c, int gpu);

}  // namespace stepsim::spec
