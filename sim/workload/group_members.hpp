// The GPUs of one GPU's group of a role (parallel_plan.hpp): an arithmetic progression inside its
// pipeline rank's block, `size` members `stride` apart from `first`, the lowest. Every GPU of a
// group finds the same members, so (role, first) names a group across the job.
#pragma once

#include "sim/workload/parallel_plan.hpp"

namespace stepsim::workload {

struct GroupMembers {
  int first = 0, stride = 1, size = 1;
  int operator[](int i) const { return first + i * stride; }
  // The member's position in the group.
  int index_of(int gpu) const { return stride > 0 ? (gpu - first) / stride : 0; }
};

// The group of `role` that global GPU `gpu` belongs to; {gpu, 1, 1} when the role has one member.
GroupMembers group_members(const ParallelPlan& plan, GroupRole role, int gpu);

}  // namespace stepsim::workload
