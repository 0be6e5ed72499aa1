// A cluster as its specification: nodes of identical devices, an NVLink island per node, and a
// scale-out fabric of NICs and switches.
//
// Link bandwidths are per direction and per GPU; `bandwidth` is the achievable (measured) figure
// used for timing, `peak_bandwidth` the datasheet one. The fabric kinds:
//  - none: a single node, no NICs.
//  - multi_plane_fat_tree: DeepSeek's: NIC i of every node on plane i; each plane is a two-layer
//    fat-tree of `switch_ports`-port switches (leaves with ports/2 down, ports/2 up).
//  - rail_fat_tree: one plane; NIC i of every node on rail (leaf group) i, spines shared.
// `oversubscription` (>= 1) divides the leaf's uplink bandwidth: traffic leaving a leaf gets
// nic_bandwidth / oversubscription in the worst case.
// The switch-level graph, routes and faults are built from this spec by the topology builder.
#pragma once

#include <string>

#include "sim/hw/device_spec.hpp"

namespace stepsim::hw {

struct LinkSpec {
  double bandwidth = 0.0;       // bytes/s per direction, achievable
  double peak_bandwidth = 0.0;  // bytes/s per direction, datasheet
  double latency_s = 0.0;
};

enum class FabricKind { none, multi_plane_fat_tree, rail_fat_tree };

struct FabricSpec {
  FabricKind kind = FabricKind::none;
  int planes = 1;
  int switch_ports = 64;
  double oversubscription = 1.0;
  LinkSpec nic;  // one NIC per GPU
};

struct ClusterSpec {
  std::string name;
  DeviceSpec device;
  int nodes = 1;
  int gpus_per_node = 8;
  LinkSpec nvlink;
  FabricSpec fabric;

  int world_size() const { return nodes * gpus_per_node; }
};

}  // namespace stepsim::hw
