#include "sim/workload/group_members.hpp"

namespace stepsim::workload {

GroupMembers group_members(const ParallelPlan& plan, GroupRole role, int gpu) {
  const auto [size, stride] = plan.group_of(role);
  if (size <= 1 || stride <= 0) return {gpu, 1, 1};
  const int rank_first = plan.first_gpu(plan.rank_of_gpu(gpu));
  const int inside = gpu - rank_first;
  return {rank_first + inside - ((inside / stride) % size) * stride, stride, size};
}

}  // namespace stepsim::workload
