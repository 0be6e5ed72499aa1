#include "sim/net/collective_profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/engine/user_error.hpp"

namespace stepsim::net {

namespace {

// Transfers a collective may simulate one by one when it is not to be bundled (run --no-bundle):
// about 400 bytes each in plans and flows, 1.6 GB at the limit.
constexpr double kMaxUnbundled = 4e6;

void check_unbundled(CollectiveOp op, const std::vector<std::vector<int>>& groups,
                     const hw::Topology& topo, const PlanOptions& options) {
  if (options.bundle) return;
  double transfers = 0.0;
  for (const auto& g : groups) transfers += estimate_transfers(op, g, topo, options);
  if (transfers <= kMaxUnbundled) return;
  throw engine::UserError({"--no-bundle", 0, 0},
                          "the step's " + std::string(to_string(op)) + " over " +
                              std::to_string(groups.size()) + " group(s) of " +
                              std::to_string(groups.front().size()) + " GPUs would simulate " +
                              std::to_string(std::llround(transfers)) +
                              " transfers one by one, over the 4000000 a collective may",
                          "drop --no-bundle, or simulate a smaller cluster");
}

// Sorts link indices below `links` (each at most once): a least-significant-digit radix sort, 11
// bits a pass, for the hundreds of thousands of links a large collective touches (several times
// faster than a comparison sort there); a comparison sort for a few.
void sort_links(std::vector<int>& v, std::size_t links) {
  if (v.size() < 4096) {
    std::sort(v.begin(), v.end());
    return;
  }
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  thread_local std::vector<int> other;  // reused: a fresh one per call is a fresh page's fault
  other.resize(v.size());
  for (int shift = 0; (links - 1) >> shift; shift += kBits) {
    std::array<std::size_t, kBuckets + 1> at{};
    for (int x : v) ++at[((static_cast<std::size_t>(x) >> shift) & (kBuckets - 1)) + 1];
    for (std::size_t b = 0; b < kBuckets; ++b) at[b + 1] += at[b];
    for (int x : v) other[at[(static_cast<std::size_t>(x) >> shift) & (kBuckets - 1)]++] = x;
    v.swap(other);
  }
}

// The links of `touched` (each once, sums nonzero in `sum`) in ascending order: sorted, or, when
// they are a large share of the cluster's links (a data-parallel collective over a million
// GPUs touches millions), read off `sum` in one pass, which is cheaper than the sort.
void ascending(std::vector<int>& touched, const double* sum, std::size_t links) {
  if (touched.size() * 20 < links) {
    sort_links(touched, links);
    return;
  }
  touched.clear();
  for (std::size_t l = 0; l < links; ++l)
    if (sum[l] != 0.0) touched.push_back(static_cast<int>(l));
}

}  // namespace

CollectiveProfiles::Key CollectiveProfiles::key_of(CollectiveOp op, double bytes,
                                                   const std::vector<int>& group,
                                                   spec::TrafficKind kind, int groups) {
  return {static_cast<int>(op),
          static_cast<long long>(bytes),
          group.front(),
          static_cast<int>(group.size()),
          group[1] - group[0],
          static_cast<int>(kind),
          groups};
}

CollectiveProfiles::Profile& CollectiveProfiles::alone(CollectiveOp op, double bytes,
                                                       const std::vector<int>& group,
                                                       const PlanOptions& options,
                                                       spec::TrafficKind kind) {
  const Key key = key_of(op, bytes, group, kind, 1);
  if (auto it = runs_.find(key); it != runs_.end()) return it->second;
  const CollectivePlan plan = plan_collective(op, bytes, group, topo_, options);
  auto r = run_collective(plan, bytes, static_cast<int>(group.size()), topo_, fidelity_, control_);
  events_ += r.events;
  flows_ += r.flows;
  Profile& p = runs_[key];
  p.time = r.time;
  p.chunks = r.chunks;
  p.nodes = std::move(r.nodes);
  p.link = LinkBytes{r.nvlink_bytes_per_gpu, r.ib_bytes_per_gpu};
  p.algorithm = plan.algorithm;
  return p;
}

const CollectiveProfiles::Profile& CollectiveProfiles::run(
    CollectiveOp op, double bytes, const std::vector<std::vector<int>>& groups,
    const PlanOptions& options, spec::TrafficKind kind) {
  check_unbundled(op, groups, topo_, options);
  const auto& g0 = groups.front();
  if (groups.size() == 1) return alone(op, bytes, g0, options, kind);
  const Key key = key_of(op, bytes, g0, kind, static_cast<int>(groups.size()));
  if (auto it = runs_.find(key); it != runs_.end()) return it->second;
  CollectivePlan plan = plan_collective(op, bytes, g0, topo_, options);
  bool aligned = true;
  for (std::size_t i = 1; i < groups.size() && aligned; ++i) {
    CollectivePlan other = plan_collective(op, bytes, groups[i], topo_, options);
    aligned = other.phases.size() == plan.phases.size();
    for (std::size_t p = 0; aligned && p < plan.phases.size(); ++p) {
      aligned = other.phases[p].repeat == plan.phases[p].repeat;
      auto& into = plan.phases[p].transfers;
      into.insert(into.end(), other.phases[p].transfers.begin(), other.phases[p].transfers.end());
    }
  }
  Profile r;
  if (aligned) {
    auto result = run_collective(plan, bytes, static_cast<int>(g0.size() * groups.size()), topo_,
                                 fidelity_, control_);
    events_ += result.events;
    flows_ += result.flows;
    r.time = result.time;
    r.chunks = result.chunks;
    r.nodes = std::move(result.nodes);
  } else {
    const Profile& first = alone(op, bytes, g0, options, kind);
    r.time = first.time;
    r.chunks = first.chunks;
    r.nodes = first.nodes;
    for (const auto& g : groups) r.time = std::max(r.time, alone(op, bytes, g, options, kind).time);
  }
  r.algorithm = plan.algorithm;
  return runs_[key] = std::move(r);
}

int CollectiveProfiles::shape(CollectiveOp op, double bytes,
                              const std::vector<std::vector<int>>& groups,
                              const PlanOptions& options, spec::TrafficKind kind, bool reverse) {
  const Profile& r = run(op, bytes, groups, options, kind);
  int& s = runs_[key_of(op, bytes, groups.front(), kind, static_cast<int>(groups.size()))]
               .shape[reverse ? 1 : 0];
  if (s == -2) s = cut(r, phase_profiles(op, bytes, groups, options, reverse));
  return s;
}

const CollectiveProfiles::Profile* CollectiveProfiles::made(CollectiveOp op, double bytes,
                                                            const std::vector<int>& group,
                                                            spec::TrafficKind kind, int groups,
                                                            bool reverse) const {
  const auto it = runs_.find(key_of(op, bytes, group, kind, groups));
  if (it == runs_.end() || it->second.shape[reverse ? 1 : 0] == -2) return nullptr;
  return &it->second;
}

std::vector<PlannedCollective> CollectiveProfiles::planned() const {
  std::vector<PlannedCollective> out;
  for (const auto& [key, p] : runs_)
    if (std::get<6>(key) == 1)
      out.push_back({static_cast<spec::TrafficKind>(std::get<5>(key)),
                     static_cast<CollectiveOp>(std::get<0>(key)),
                     static_cast<double>(std::get<1>(key)), std::get<2>(key), std::get<3>(key),
                     p.algorithm});
  return out;
}

int CollectiveProfiles::distinct() const {
  int n = 0;
  for (const auto& [key, p] : runs_) n += std::get<6>(key) == 1;
  return n;
}

int CollectiveProfiles::add_profile(std::vector<LinkLoad> p) {
  if (p.empty()) return -1;
  profiles_.push_back(std::move(p));
  return static_cast<int>(profiles_.size()) - 1;
}

std::vector<int> CollectiveProfiles::phase_profiles(CollectiveOp op, double bytes,
                                                    const std::vector<std::vector<int>>& groups,
                                                    const PlanOptions& options, bool reverse) {
  // Every member's transfer on its own links, so that ops of any kind meet where their traffic
  // does; bundled (representatives, core_weight on the leaf-spine links) beyond kMaxTransfers,
  // unless the collective is not to be bundled at all (run --no-bundle).
  constexpr double kMaxTransfers = 4e6;
  check_unbundled(op, groups, topo_, options);
  PlanOptions each = options;
  each.bundle = false;
  double transfers = 0.0;
  for (const auto& g : groups) transfers += estimate_transfers(op, g, topo_, each);
  if (options.bundle && transfers > kMaxTransfers) each.bundle = true;
  // Per phase, bytes per link (scratch_, phase p at p·links) and the links touched.
  const std::size_t links = topo_.links().size();
  std::vector<std::vector<int>> touched;
  hw::Route r;
  for (const auto& g : groups) {
    if (control_) control_->check();
    const CollectivePlan plan = plan_collective(op, bytes, g, topo_, each);
    if (touched.size() < plan.phases.size()) {
      touched.resize(plan.phases.size());
      scratch_.resize(plan.phases.size() * links, 0.0);
    }
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      const Phase& ph = plan.phases[p];
      double* sum = scratch_.data() + p * links;
      for (const Transfer& t : ph.transfers) {
        const double b = t.bytes * static_cast<double>(ph.payload_steps());
        if (b <= 0.0 || t.src == t.dst) continue;
        route_of(topo_, t, r, reverse);
        for (std::size_t i = 0; i < r.links.size(); ++i) {
          const int l = r.links[i];
          if (sum[l] == 0.0) touched[p].push_back(l);
          sum[l] += b * r.share_of(i) * t.weight_on(topo_.links()[l].cls);
        }
      }
    }
  }
  std::vector<int> out;
  for (std::size_t p = 0; p < touched.size(); ++p) {
    double* sum = scratch_.data() + p * links;
    ascending(touched[p], sum, links);
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

int CollectiveProfiles::cut(const Profile& r, const std::vector<int>& phases) {
  const double end = r.time.seconds();
  if (end <= 0.0) return -1;
  // A phase is in progress from its first chunk's start to its last chunk's end; the phases
  // start in order and end in order, so their in-progress sets change at most 2P - 1 times for P
  // phases, whatever the chunk count. Each such interval is a piece: it moves, per phase in
  // progress, exactly the bytes its chunks move then (each node moving its chunk's bytes evenly
  // over its own run), spread evenly over the piece.
  std::map<int, std::pair<double, double>> progress;  // phase -> (first start, last end)
  for (const NodeWindow& n : r.nodes) {
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
      for (const NodeWindow& n : r.nodes) {
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
      ascending(touched, scratch_.data(), links);
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

int CollectiveProfiles::join(const std::vector<std::pair<int, long long>>& parts) {
  if (auto it = joined_.find(parts); it != joined_.end()) return it->second;
  long long total = 0;
  for (const auto& [shape, t] : parts) total += t;
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

}  // namespace stepsim::net
