#include "sim/spec/cluster.hpp"

namespace stepsim::spec {

FabricShape fabric_shape(const ClusterSpec& c) {
  if (c.fabric.kind == FabricKind::none) return {};
  const int half = c.fabric.nodes_per_leaf();
  const int leaves_per_rail = (c.nodes + half - 1) / half;
  FabricShape s;
  const bool multi = c.fabric.kind == FabricKind::multi_plane_fat_tree;
  s.planes = multi ? c.gpus_per_node : 1;
  s.leaves_per_plane = multi ? leaves_per_rail : leaves_per_rail * c.gpus_per_node;
  s.spines_per_plane = s.leaves_per_plane > 1 ? (s.leaves_per_plane + 1) / 2 : 0;
  return s;
}

}  // namespace stepsim::spec
