#include "sim/workload/collective_timer.hpp"

#include <algorithm>
#include <cmath>

#include "sim/net/collective_runner.hpp"

namespace stepsim::workload {

int max_target_nodes(const MoeSpec& moe, int ep_nodes) {
  if (moe.groups <= 0 || moe.topk_groups <= 0) return 0;
  return std::max(
      1, static_cast<int>(std::ceil(static_cast<double>(moe.topk_groups) * ep_nodes / moe.groups)));
}

CollectiveTimer::CollectiveTimer(const ScenarioSpec& spec, const ParallelPlan& plan,
                                 const hw::Topology& topo, const engine::RunControl* control)
    : spec_(spec),
      plan_(plan),
      topo_(topo),
      control_(control),
      fidelity_(spec.fidelity == NetworkFidelity::flow ? hw::Fidelity::flow
                                                       : hw::Fidelity::analytic) {
  options_.top_k = spec.model.moe.top_k;
  options_.max_nodes = max_target_nodes(spec.model.moe, plan.ep_group().nodes());
}

std::vector<int> CollectiveTimer::strided(int first, int count, int stride) {
  std::vector<int> g;
  for (int i = 0; i < count; ++i) g.push_back(first + i * stride);
  return g;
}

engine::Time CollectiveTimer::time(net::CollectiveOp op, double bytes,
                                   const std::vector<int>& group) {
  if (group.size() < 2 || bytes <= 0.0 || spec_.fidelity == NetworkFidelity::free)
    return engine::Time();
  const auto key =
      std::make_tuple(static_cast<int>(op), static_cast<long long>(bytes), group.front(),
                      static_cast<int>(group.size()), group[1] - group[0]);
  if (auto it = cache_.find(key); it != cache_.end()) {
    pending_ += it->second.second;
    return it->second.first;
  }
  const auto r = net::run_collective(net::plan_collective(op, bytes, group, topo_, options_), bytes,
                                     static_cast<int>(group.size()), topo_, fidelity_, control_);
  events_ += r.events;
  const net::LinkBytes link{r.nvlink_bytes_per_gpu, r.ib_bytes_per_gpu};
  cache_[key] = {r.time, link};
  pending_ += link;
  return r.time;
}

net::LinkBytes CollectiveTimer::take_link() {
  const net::LinkBytes l = pending_;
  pending_ = {};
  return l;
}

}  // namespace stepsim::workload
