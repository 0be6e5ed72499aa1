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

}  // namespace stepsim::spec
