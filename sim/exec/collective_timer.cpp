#include "sim/exec/collective_timer.hpp"

#include <algorithm>
#include <cmath>

#include "sim/net/collective_runner.hpp"

namespace stepsim::exec {

CollectiveTimer::CollectiveTimer(const workload::ParallelPlan& plan, const hw::Topology& topo,
                                 const Symmetry& symmetry, spec::NetworkFidelity fidelity,
                                 net::PlanOptions send_options, const engine::RunControl* control)
    : plan_(plan),
      topo_(topo),
      sym_(symmetry),
      control_(control),
      free_(fidelity == spec::NetworkFidelity::free),
      fidelity_(fidelity == spec::NetworkFidelity::flow ? hw::Fidelity::flow
                                                        : hw::Fidelity::analytic),
      send_options_(std::move(send_options)) {
  const spec::ClusterSpec& cluster = topo.spec();
  for (const auto& f : cluster.faults) {
    if (f.node_hit(cluster.gpus_per_node) >= 0)
      faulted_nodes_.push_back(f.node_hit(cluster.gpus_per_node));
    fabric_fault_ |= f.on_leaf_spine_link();
  }
}

bool CollectiveTimer::touches_fault(const std::vector<int>& group) const {
  const int gpn = topo_.spec().gpus_per_node;
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
                                             const std::vector<int>& group) const {
  return {static_cast<int>(op),           static_cast<long long>(bytes), group.front(),
          static_cast<int>(group.size()), group[1] - group[0],           static_cast<int>(kind_)};
}

const CollectiveTimer::Alone& CollectiveTimer::run(net::CollectiveOp op, double bytes,
                                                   const std::vector<int>& group) {
  const Key key = key_of(op, bytes, group);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const net::CollectivePlan plan = net::plan_collective(op, bytes, group, topo_, options_);
  auto r =
      net::run_collective(plan, bytes, static_cast<int>(group.size()), topo_, fidelity_, control_);
  events_ += r.events;
  return cache_[key] = {{r.time, r.chunks, std::move(r.nodes)},
                        net::LinkBytes{r.nvlink_bytes_per_gpu, r.ib_bytes_per_gpu},
                        plan.algorithm};
}

std::vector<PlannedCollective> CollectiveTimer::planned() const {
  std::vector<PlannedCollective> out;
  for (const auto& [key, alone] : cache_)
    out.push_back({static_cast<spec::TrafficKind>(std::get<5>(key)),
                   static_cast<net::CollectiveOp>(std::get<0>(key)),
                   static_cast<double>(std::get<1>(key)), std::get<2>(key), std::get<3>(key),
                   alone.algorithm});
  return out;
}

int CollectiveTimer::load_of(net::CollectiveOp op, double bytes,
                             const std::vector<std::vector<int>>& groups, const Run& r) {
  const auto key =
      std::make_tuple(key_of(op, bytes, groups.front()), static_cast<int>(groups.size()), reverse_);
  if (auto it = loads_.find(key); it != loads_.end()) return it->second;
  return loads_[key] = shape(r, phase_profiles(op, bytes, groups));
}

int CollectiveTimer::add_profile(std::vector<LinkLoad> p) {
  if (p.empty()) return -1;
  profiles_.push_back(std::move(p));
  return static_cast<int>(profiles_.size()) - 1;
}

std::vector<int> CollectiveTimer::phase_profiles(net::CollectiveOp op, double bytes,
                                                 const std::vector<std::vector<int>>& groups) {
  // Every member's transfer on its own links, so that ops of any kind meet where their traffic
  // does; bundled (representatives, core_weight on the leaf-spine links) beyond kMaxTransfers.
  constexpr double kMaxTransfers = 4e6;
  net::PlanOptions each = options_;
  each.bundle = false;
  double transfers = 0.0;
  for (const auto& g : groups) transfers += net::estimate_transfers(op, g, topo_, each);
  if (transfers > kMaxTransfers) each.bundle = true;
  // Per phase, bytes per link (scratch_, phase p at p·links) and the links touched.
  const std::size_t links = topo_.links().size();
  std::vector<std::vector<int>> touched;
  for (const auto& g : groups) {
    if (control_) control_->check();
    const net::CollectivePlan plan = net::plan_collective(op, bytes, g, topo_, each);
    if (touched.size() < plan.phases.size()) {
      touched.resize(plan.phases.size());
      scratch_.resize(plan.phases.size() * links, 0.0);
    }
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      const net::Phase& ph = plan.phases[p];
      double* sum = scratch_.data() + p * links;
      for (const net::Transfer& t : ph.transfers) {
        const double b = t.bytes * static_cast<double>(ph.payload_steps());
        if (b <= 0.0 || t.src == t.dst) continue;
        for (int l : (reverse_ ? topo_.route(t.dst, t.src) : topo_.route(t.src, t.dst)).links) {
          if (sum[l] == 0.0) touched[p].push_back(l);
          sum[l] += topo_.links()[l].cls == hw::LinkClass::ib_core ? b * t.core_weight : b;
        }
      }
    }
  }
  std::vector<int> out;
  for (std::size_t p = 0; p < touched.size(); ++p) {
    double* sum = scratch_.data() + p * links;
    std::sort(touched[p].begin(), touched[p].end());
    std::vector<LinkLoad> profile;
    profile.reserve(touched[p].size());
    for (int l : touched[p]) {
      profile.push_back({l, sum[l]});
      sum[l] = 0.0;
    }
    out.push_back(add_profile(std::move(profile)));
  }
  return out;
}

int CollectiveTimer::shape(const Run& r, const std::vector<int>& phases) {
  const double end = r.time.seconds();
  if (end <= 0.0) return -1;
  // A phase is in progress from its first chunk's start to its last chunk's end; the phases
  // start in order and end in order, so their in-progress sets change at most 2P - 1 times for P
  // phases, whatever the chunk count. Each such interval is a piece: it moves, per phase in
  // progress, exactly the bytes its chunks move then (each node moving its chunk's bytes evenly
  // over its own run), spread evenly over the piece.
  std::map<int, std::pair<double, double>> progress;  // phase -> (first start, last end)
  for (const net::NodeWindow& n : r.nodes) {
    if (n.finish <= n.start) continue;
    auto [it, added] =
        progress.try_emplace(n.phase, std::make_pair(n.start.seconds(), n.finish.seconds()));
    if (added) continue;
    it->second.first = std::min(it->second.first, n.start.seconds());
    it->second.second = std::max(it->second.second, n.finish.seconds());
  }
  std::vector<double> cuts;
  for (const auto& [phase, span] : progress) {
    cuts.push_back(span.first);
    cuts.push_back(span.second);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  struct Span {
    double until = 0.0;
    std::vector<int> phases;     // in progress, sorted
    std::vector<double> shares;  // per phase of `phases`: the share of its bytes moved
  };
  std::vector<Span> spans;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const double a = cuts[k], b = cuts[k + 1];
    Span span{k + 2 == cuts.size() ? 1.0 : b / end, {}, {}};
    for (const auto& [phase, range] : progress) {
      if (range.first > a || range.second < b) continue;
      double share = 0.0;
      for (const net::NodeWindow& n : r.nodes) {
        const double s = n.start.seconds(), f = n.finish.seconds();
        if (n.phase != phase || f <= s) continue;
        const double overlap = std::min(f, b) - std::max(s, a);
        if (overlap > 0.0) share += overlap / (f - s) / r.chunks;
      }
      span.phases.push_back(phase);
      span.shares.push_back(share);
    }
    spans.push_back(std::move(span));
  }
  std::vector<LoadPiece> pieces;
  bool loads = false;
  const std::size_t links = topo_.links().size();
  if (scratch_.size() < links) scratch_.resize(links, 0.0);
  for (const Span& span : spans) {
    std::vector<std::pair<int, double>> parts;  // (phase profile, share)
    for (std::size_t q = 0; q < span.phases.size(); ++q) {
      const int p = span.phases[q];
      const int prof = p < static_cast<int>(phases.size()) ? phases[p] : -1;
      if (prof >= 0) parts.push_back({prof, span.shares[q]});
    }
    int profile = -1;
    if (parts.size() == 1 && std::abs(parts.front().second - 1.0) < 1e-9) {
      profile = parts.front().first;  // a whole phase, alone
    } else if (!parts.empty()) {
      std::vector<int> touched;
      for (const auto& [prof, w] : parts)
        for (const LinkLoad& l : profiles_[prof]) {
          if (scratch_[l.link] == 0.0) touched.push_back(l.link);
          scratch_[l.link] += l.bytes * w;
        }
      std::sort(touched.begin(), touched.end());
      std::vector<LinkLoad> p;
      p.reserve(touched.size());
      for (int l : touched) {
        p.push_back({l, scratch_[l]});
        scratch_[l] = 0.0;
      }
      profile = add_profile(std::move(p));
    }
    loads |= profile >= 0;
    if (!pieces.empty() && pieces.back().profile == profile)
      pieces.back().until = span.until;  // the same load goes on
    else
      pieces.push_back({span.until, profile});
  }
  if (!loads) return -1;
  shapes_.push_back(std::move(pieces));
  return static_cast<int>(shapes_.size()) - 1;
}

int CollectiveTimer::take_load() {
  std::vector<std::pair<int, long long>> parts;  // (shape, time in ps)
  long long total = 0;
  for (const auto& [shape, time] : pending_loads_) {
    total += time.picoseconds();
    parts.push_back({shape, time.picoseconds()});
  }
  pending_loads_.clear();
  bool any = false;
  for (const auto& [shape, t] : parts) any |= shape >= 0;
  if (!any) return -1;
  if (parts.size() == 1) return parts.front().first;
  if (auto it = joined_.find(parts); it != joined_.end()) return it->second;
  // One after another: each collective's pieces over its share of the op's time.
  std::vector<LoadPiece> pieces;
  double from = 0.0;
  for (const auto& [shape, t] : parts) {
    const double share = static_cast<double>(t) / static_cast<double>(total);
    if (shape < 0)
      pieces.push_back({from + share, -1});
    else
      for (const LoadPiece& piece : shapes_[shape])
        pieces.push_back({from + share * piece.until, piece.profile});
    from += share;
  }
  pieces.back().until = 1.0;
  shapes_.push_back(std::move(pieces));
  return joined_[parts] = static_cast<int>(shapes_.size()) - 1;
}

std::vector<int> CollectiveTimer::strided(int first, int count, int stride) {
  std::vector<int> g;
  for (int i = 0; i < count; ++i) g.push_back(first + i * stride);
  return g;
}

engine::Time CollectiveTimer::send(double bytes, int from, int to) {
  reverse_ = from > to;
  workload::CollectiveWork c;
  c.op = net::CollectiveOp::p2p;
  c.bytes = bytes;
  c.kind = spec::TrafficKind::pp;
  c.options = send_options_;
  const engine::Time t = time(c, {std::min(from, to), std::max(from, to)});
  reverse_ = false;
  return t;
}

engine::Time CollectiveTimer::time(const workload::CollectiveWork& c,
                                   const std::vector<int>& group) {
  const net::CollectiveOp op = c.op;
  const double bytes = c.bytes;
  if (group.size() < 2 || bytes <= 0.0 || free_) return engine::Time();
  kind_ = c.kind;
  options_ = c.options;
  const Alone& base = run(op, bytes, group);
  engine::Time slowest = base.run.time;
  const Run* shaped = &base.run;  // the run whose course the op's load follows
  auto groups = siblings(group);
  if (groups.size() > 1) {
    // Faults: each touched sibling alone (a fault can only slow it)...
    if (fabric_fault_ || !faulted_nodes_.empty())
      for (const auto& g : groups)
        if (touches_fault(g)) slowest = std::max(slowest, run(op, bytes, g).run.time);
    // ...and all of them at once, sharing the fabric (flow fidelity: the analytic model has no
    // sharing to see).
    if (fidelity_ == hw::Fidelity::flow) {
      shaped = &together(op, bytes, groups);
      slowest = std::max(slowest, shaped->time);
    }
  } else {
    groups = {group};
  }
  pending_ += base.link;
  pending_loads_.push_back(
      {fidelity_ == hw::Fidelity::flow ? load_of(op, bytes, groups, *shaped) : -1, slowest});
  return slowest;
}

const CollectiveTimer::Run& CollectiveTimer::together(net::CollectiveOp op, double bytes,
                                                      const std::vector<std::vector<int>>& groups) {
  const auto& g0 = groups.front();
  const Key key = key_of(op, bytes, g0);
  if (auto it = together_cache_.find(key); it != together_cache_.end()) return it->second;
  net::CollectivePlan plan = net::plan_collective(op, bytes, g0, topo_, options_);
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
  Run r;
  if (aligned) {
    auto result = net::run_collective(plan, bytes, static_cast<int>(g0.size() * groups.size()),
                                      topo_, fidelity_, control_);
    events_ += result.events;
    r = {result.time, result.chunks, std::move(result.nodes)};
  } else {
    // Phases that do not line up (siblings planned by different algorithms): each alone, the
    // first one's course standing for them all.
    r = run(op, bytes, g0).run;
    for (const auto& g : groups) r.time = std::max(r.time, run(op, bytes, g).run.time);
  }
  return together_cache_[key] = std::move(r);
}

net::LinkBytes CollectiveTimer::take_link() {
  const net::LinkBytes l = pending_;
  pending_ = {};
  return l;
}

}  // namespace stepsim::exec
