#include "sim/spec/cluster.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/engine/check.hpp"

namespace stepsim::spec {

FabricShape fabric_shape(const ClusterSpec& c) {
  if (c.fabric.kind == FabricKind::none) return {};
  const int half = c.fabric.nodes_per_leaf(c.gpus_per_node);
  const int leaves_per_rail = (c.nodes + half - 1) / half;
  FabricShape s;
  if (c.fabric.kind == FabricKind::clos3) {
    s.planes = 1;
    s.leaves_per_plane = leaves_per_rail;
    const int per_pod = std::max(1, c.fabric.leaves_per_pod);
    s.pods = (s.leaves_per_plane + per_pod - 1) / per_pod;
    s.spines_per_plane = s.leaves_per_plane > 1 ? c.fabric.switch_ports / 2 : 0;
    s.aggs = s.pods > 1 ? s.spines_per_plane : 0;
    return s;
  }
  const bool multi = c.fabric.kind == FabricKind::multi_plane_fat_tree;
  s.planes = multi ? c.gpus_per_node : c.fabric.kind == FabricKind::dual_plane ? 2 : 1;
  s.leaves_per_plane = multi ? leaves_per_rail : leaves_per_rail * c.gpus_per_node;
  s.spines_per_plane = s.leaves_per_plane > 1 ? (s.leaves_per_plane + 1) / 2 : 0;
  return s;
}

int leaf_port(const ClusterSpec& c, int gpu) {
  const int node = c.slot_of(gpu / c.gpus_per_node),
            half = c.fabric.nodes_per_leaf(c.gpus_per_node);
  if (c.fabric.kind == FabricKind::clos3)
    return node % half * c.gpus_per_node + gpu % c.gpus_per_node;
  return node % half;
}

std::vector<int> placement_slots(const ClusterSpec& c, Placement placement) {
  if (placement != Placement::spread && placement != Placement::zones) return {};
  // Slots group by group in round-robin order: the first slot of every group (a leaf, or a
  // zone's leaves), then the second, ... skipping slots past the last node.
  const int half = std::max(1, c.fabric.nodes_per_leaf(c.gpus_per_node));
  const int group =
      placement == Placement::spread ? half : half * std::max(1, c.fabric.leaves_per_pod);
  const int groups = (c.nodes + group - 1) / group;
  std::vector<int> slots;
  for (int i = 0; i < group; ++i)
    for (int g = 0; g < groups; ++g)
      if (g * group + i < c.nodes) slots.push_back(g * group + i);
  return slots;
}

std::string fault_place(const FaultSpec& f) {
  auto n = [](int i) { return std::to_string(i); };
  switch (f.kind) {
    case FaultKind::nic_down:
    case FaultKind::nic_degrade:
      return "NIC " + n(f.nic) + " of node " + n(f.node);
    case FaultKind::link_down:
    case FaultKind::link_degrade:
      return "plane " + n(f.plane) + " leaf " + n(f.leaf) + " - spine " + n(f.spine) + " link";
    case FaultKind::switch_down:
      return "plane " + n(f.plane) + (f.leaf >= 0 ? " leaf " + n(f.leaf) : " spine " + n(f.spine));
    case FaultKind::node_down:
      return "node " + n(f.node);
    case FaultKind::nvlink_degrade:
      return "GPU " + n(f.gpu) + "'s NVLink";
    case FaultKind::straggler:
      return "GPU " + n(f.gpu);
  }
  STEPSIM_UNREACHABLE("unknown fault kind");
}

std::string fault_text(const FaultSpec& f) {
  char factor[32];
  std::snprintf(factor, sizeof factor, "%.2fx", f.factor);
  switch (f.kind) {
    case FaultKind::nic_degrade:
    case FaultKind::link_degrade:
    case FaultKind::nvlink_degrade:
      return fault_place(f) + " at " + factor + " bandwidth";
    case FaultKind::straggler:
      return fault_place(f) + " computes " + factor + " slower";
    default:
      return fault_place(f) + " down";
  }
}

}  // namespace stepsim::spec
