// A collective algorithm: how a collective runs on a group, as phases of point-to-point
// transfers for the flow network (collective_plan.hpp), and the bytes it moves per GPU and link
// class, in closed form, for the roofline (collective_cost.hpp). One file per algorithm, each
// defining one AlgorithmDef, listed once in registry.cpp in order of preference: `auto` takes
// the first that runs the operation and fits the group. The closed form and the plan are two
// views of one algorithm; a test checks they move the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/net/collective_cost.hpp"
#include "sim/net/group_layout.hpp"

namespace stepsim::net {

struct PlanInput {
  CollectiveOp op;
  double bytes;  // S, as collective_cost.hpp defines it per operation
  const std::vector<int>& group;
  const GroupLayout& layout;
  const hw::Topology& topo;
  const PlanOptions& options;
};

struct ShapeInput {
  CollectiveOp op;
  double bytes;
  GroupShape group;
  bool multi_plane = false;  // PXN: inter-node traffic to another plane crosses NVLink first
  int top_k = 8, max_nodes = 0;
};

struct AlgorithmDef {
  std::string_view name;  // as --algorithm and reports spell it
  bool (*runs)(CollectiveOp op);
  bool (*fits)(GroupShape shape, bool uniform);  // whether it can run on such a group (n >= 2)
  std::string_view needs;                        // what `fits` asks of a group, for error messages
  // Appends its phases to `out`; transfers the algorithm generates pair by pair go through
  // `sink` (bundled as they come), the others are bundled afterwards.
  void (*plan)(const PlanInput& in, TransferSink& sink, CollectivePlan& out);
  LinkBytes (*bytes_per_gpu)(const ShapeInput& in);
};

// `fits` for algorithms that run on any group of two or more GPUs.
inline bool any_group(GroupShape, bool) {
  return true;
}

// The registered algorithms, in order of preference.
const std::vector<const AlgorithmDef*>& algorithms();
const AlgorithmDef* find_algorithm(std::string_view name);
// The algorithm for `op` on a group of this shape: the named one, or with "auto" the first that
// runs `op` and fits. Throws engine::UserError (located at --algorithm) for an unknown name or
// one that cannot run this collective on this group.
const AlgorithmDef& choose_algorithm(CollectiveOp op, GroupShape shape, bool uniform,
                                     std::string_view requested);
// "auto, hierarchical, ring, ..." for hints and help.
std::string algorithm_names();

}  // namespace stepsim::net
