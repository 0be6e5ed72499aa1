#include "sim/exec/collective_timer.hpp"

#include <algorithm>
#include <cmath>

#include "sim/net/collective_runner.hpp"

namespace stepsim::exec {

CollectiveTimer::CollectiveTimer(const ScenarioSpec& spec, const ParallelPlan& plan,
                                 const hw::Topology& topo, const Symmetry& symmetry,
                                 const engine::RunControl* control)
    : spec_(spec),
      plan_(plan),
      topo_(topo),
      sym_(symmetry),
      control_(control),
      fidelity_(spec.fidelity == NetworkFidelity::flow ? hw::Fidelity::flow
                                                       : hw::Fidelity::analytic) {
  options_.top_k = spec.model.moe.top_k;
  options_.chunks = spec.chunks;
  options_.max_nodes = workload::max_target_nodes(spec.model.moe, plan.ep_group().nodes());
  for (const auto& f : spec.cluster.faults) {
    if (f.node_hit(spec.cluster.gpus_per_node) >= 0)
      faulted_nodes_.push_back(f.node_hit(spec.cluster.gpus_per_node));
    fabric_fault_ |= f.on_leaf_spine_link();
  }
}

bool CollectiveTimer::touches_fault(const std::vector<int>& group) const {
  const int gpn = spec_.cluster.gpus_per_node;
  for (int r : group)
    if (std::find(faulted_nodes_.begin(), faulted_nodes_.end(), r / gpn) != faulted_nodes_.end())
      return true;
  if (!fabric_fault_) return false;
  // A leaf-spine fault touches only traffic that climbs to a spine: a group whose nodes reach more
  // than one leaf at some GPU index (plane or rail).
  for (int l = 0; l < gpn; ++l) {
    const int leaf = topo_.leaf_of(group.front() / gpn * gpn + l);
    for (int r : group)
      if (topo_.leaf_of(r / gpn * gpn + l) != leaf) return true;
  }
  return false;
}

std::vector<std::vector<int>> CollectiveTimer::siblings(const std::vector<int>& group) const {
  const int block = sym_.block;
  const int first = group.front(), base = first / block * block;
  std::vector<std::vector<int>> out;
  auto shifted = [&](int by) {
    std::vector<int> g = group;
    for (int& r : g) r += by;
    out.push_back(std::move(g));
  };
  const int stride = group[1] - group[0];
  const int rank = first / block;
  if (group.back() >= base + block) {
    // Pipeline sends, from the first GPU of the class's first cell: every GPU of its cells.
    for (int j : *cells_)
      for (int o = 0; o < sym_.cell; ++o) shifted(sym_.first_gpu(rank, j) + o - first);
  } else if (stride == 1) {
    // tp or ep groups, inside a cell: every group of the class's cells.
    const int n = static_cast<int>(group.size());
    for (int j : *cells_)
      for (int start = sym_.first_gpu(rank, j); start + n <= sym_.first_gpu(rank, j) + sym_.cell;
           start += n)
        shifted(start - first);
  } else {
    for (int i = 0; i < stride; ++i) shifted(base + i - first);  // dp / edp: one per offset
  }
  return out;
}

CollectiveTimer::Key CollectiveTimer::key_of(net::CollectiveOp op, double bytes,
                                             const std::vector<int>& group) {
  return {static_cast<int>(op), static_cast<long long>(bytes), group.front(),
          static_cast<int>(group.size()), group[1] - group[0]};
}

CollectiveTimer::Alone CollectiveTimer::run(net::CollectiveOp op, double bytes,
                                            const std::vector<int>& group) {
  const Key key = key_of(op, bytes, group);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const net::CollectivePlan plan = net::plan_collective(op, bytes, group, topo_, options_);
  const auto r =
      net::run_collective(plan, bytes, static_cast<int>(group.size()), topo_, fidelity_, control_);
  events_ += r.events;
  return cache_[key] = {r.time, net::LinkBytes{r.nvlink_bytes_per_gpu, r.ib_bytes_per_gpu}};
}

int CollectiveTimer::load_of(net::CollectiveOp op, double bytes,
                             const std::vector<std::vector<int>>& groups) {
  const auto key =
      std::make_tuple(key_of(op, bytes, groups.front()), static_cast<int>(groups.size()), reverse_);
  if (auto it = loads_.find(key); it != loads_.end()) return it->second;
  return loads_[key] = profile(op, bytes, groups);
}

int CollectiveTimer::profile(net::CollectiveOp op, double bytes,
                             const std::vector<std::vector<int>>& groups) {
  if (fidelity_ != hw::Fidelity::flow) return -1;
  // Every member's transfer on its own links, so that ops of any kind meet where their traffic
  // does; bundled (representatives, core_weight on the leaf-spine links) beyond kMaxTransfers.
  constexpr double kMaxTransfers = 4e6;
  net::PlanOptions each = options_;
  each.bundle = false;
  double transfers = 0.0;
  for (const auto& g : groups) transfers += net::estimate_transfers(op, g, topo_, each);
  if (transfers > kMaxTransfers) each.bundle = true;
  scratch_.resize(topo_.links().size(), 0.0);
  for (const auto& g : groups) {
    if (control_) control_->check();
    const net::CollectivePlan plan = net::plan_collective(op, bytes, g, topo_, each);
    for (const net::Phase& ph : plan.phases)
      for (const net::Transfer& t : ph.transfers) {
        const double b = t.bytes * static_cast<double>(ph.payload_steps());
        if (b <= 0.0 || t.src == t.dst) continue;
        for (int l : (reverse_ ? topo_.route(t.dst, t.src) : topo_.route(t.src, t.dst)).links) {
          if (scratch_[l] == 0.0) touched_.push_back(l);
          scratch_[l] += topo_.links()[l].cls == hw::LinkClass::ib_core ? b * t.core_weight : b;
        }
      }
  }
  std::sort(touched_.begin(), touched_.end());
  std::vector<LinkLoad> p;
  p.reserve(touched_.size());
  for (int l : touched_) {
    p.push_back({l, scratch_[l]});
    scratch_[l] = 0.0;
  }
  touched_.clear();
  if (p.empty()) return -1;
  profiles_.push_back(std::move(p));
  return static_cast<int>(profiles_.size()) - 1;
}

int CollectiveTimer::take_load() {
  std::vector<int> parts;
  for (int p : pending_loads_)
    if (p >= 0) parts.push_back(p);
  pending_loads_.clear();
  if (parts.empty()) return -1;
  if (parts.size() == 1) return parts.front();
  if (auto it = sums_.find(parts); it != sums_.end()) return it->second;
  std::map<int, double> sum;
  for (int p : parts)
    for (const LinkLoad& l : profiles_[p]) sum[l.link] += l.bytes;
  std::vector<LinkLoad> out;
  out.reserve(sum.size());
  for (const auto& [link, b] : sum) out.push_back({link, b});
  profiles_.push_back(std::move(out));
  return sums_[parts] = static_cast<int>(profiles_.size()) - 1;
}

std::vector<int> CollectiveTimer::strided(int first, int count, int stride) {
  std::vector<int> g;
  for (int i = 0; i < count; ++i) g.push_back(first + i * stride);
  return g;
}

engine::Time CollectiveTimer::send(double bytes, int from, int to) {
  reverse_ = from > to;
  const engine::Time t =
      time(net::CollectiveOp::p2p, bytes, {std::min(from, to), std::max(from, to)});
  reverse_ = false;
  return t;
}

engine::Time CollectiveTimer::time(net::CollectiveOp op, double bytes,
                                   const std::vector<int>& group) {
  if (group.size() < 2 || bytes <= 0.0 || spec_.fidelity == NetworkFidelity::free)
    return engine::Time();
  const Alone base = run(op, bytes, group);
  engine::Time slowest = base.time;
  auto groups = siblings(group);
  if (groups.size() > 1) {
    // Faults: each touched sibling alone (a fault can only slow it)...
    if (fabric_fault_ || !faulted_nodes_.empty())
      for (const auto& g : groups)
        if (touches_fault(g)) slowest = std::max(slowest, run(op, bytes, g).time);
    // ...and all of them at once, sharing the fabric (flow fidelity: the analytic model has no
    // sharing to see).
    if (fidelity_ == hw::Fidelity::flow) slowest = std::max(slowest, together(op, bytes, groups));
  } else {
    groups = {group};
  }
  pending_ += base.link;
  pending_loads_.push_back(fidelity_ == hw::Fidelity::flow ? load_of(op, bytes, groups) : -1);
  return slowest;
}

engine::Time CollectiveTimer::together(net::CollectiveOp op, double bytes,
                                       const std::vector<std::vector<int>>& groups) {
  const auto& g0 = groups.front();
  const Key key = key_of(op, bytes, g0);
  if (auto it = together_cache_.find(key); it != together_cache_.end()) return it->second;
  net::CollectivePlan plan = net::plan_collective(op, bytes, g0, topo_, options_);
  engine::Time t;
  bool aligned = true;
  for (std::size_t i = 1; i < groups.size() && aligned; ++i) {
    net::CollectivePlan other = net::plan_collective(op, bytes, groups[i], topo_, options_);
    aligned = other.phases.size() == plan.phases.size();
    for (std::size_t p = 0; aligned && p < plan.phases.size(); ++p) {
      aligned = other.phases[p].repeat == plan.phases[p].repeat;
      auto& into = plan.phases[p].transfers;
      into.insert(into.end(), other.phases[p].transfers.begin(), other.phases[p].transfers.end());
    }
  }
  if (aligned) {
    const auto r = net::run_collective(plan, bytes, static_cast<int>(g0.size() * groups.size()),
                                       topo_, fidelity_, control_);
    events_ += r.events;
    t = r.time;
  } else {
    // Phases that do not line up (siblings planned by different algorithms): each alone.
    for (const auto& g : groups) t = std::max(t, run(op, bytes, g).time);
  }
  return together_cache_[key] = t;
}

net::LinkBytes CollectiveTimer::take_link() {
  const net::LinkBytes l = pending_;
  pending_ = {};
  return l;
}

}  // namespace stepsim::exec
