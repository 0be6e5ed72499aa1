#include "sim/hw/flow_network.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/engine/check.hpp"

namespace stepsim::hw {

using engine::Time;

FlowNetwork::FlowNetwork(engine::Simulator& sim, const Topology& topo, Fidelity fidelity,
                         Lumps lumped, bool group_spreads)
    : sim_(sim),
      topo_(topo),
      fidelity_(fidelity),
      group_spreads_(group_spreads),
      lumped_(std::move(lumped)) {}

double FlowNetwork::link_rate(int link) const {
  const Crossed* c = crossed_.find(link);
  if (!c) return 0.0;
  if (c->lump >= 0) return c->share * system_.usage(c->lump);
  return c->constraint < 0 ? 0.0 : system_.usage(c->constraint);
}

double FlowNetwork::link_bytes(int link) const {
  const Crossed* b = crossed_.find(link);
  return b ? b->bytes : 0.0;
}

int FlowNetwork::lump_key(const Topology& topo, int link) {
  const Link& k = topo.links()[link];
  return topo.kind_of(k.from) == VertexKind::leaf ? k.from * 2 : k.to * 2 + 1;
}

int FlowNetwork::lump_of(const FlowRequest& q, const Route& r, std::size_t i) {
  const std::vector<Link>& links = topo_.links();
  if (lumped_.empty() || links[r.links[i]].cls != LinkClass::ib_core) return -1;
  const int key = lump_key(topo_, r.links[i]);
  const auto promised = lumped_.find(key);
  if (promised == lumped_.end()) return -1;
  const std::span<const double> spread = promised->second;
  STEPSIM_CHECK(
      r.spread && (q.spread.data() == spread.data() || std::ranges::equal(q.spread, spread)),
      "a flow through lumped links that does not spread as promised");
  const auto [it, added] = lumps_.try_emplace(key, -1);
  if (added) {
    // Its links and their shares are every flow's (the promise): recorded once, for link_rate().
    double capacity = engine::MaxMinSystem::kUnbounded;
    for (std::size_t j = 0; j < r.links.size(); ++j)
      if (links[r.links[j]].cls == LinkClass::ib_core && lump_key(topo_, r.links[j]) == key)
        capacity = std::min(capacity, links[r.links[j]].bandwidth / r.share_of(j));
    it->second = system_.add_constraint(capacity);
    for (std::size_t j = 0; j < r.links.size(); ++j)
      if (links[r.links[j]].cls == LinkClass::ib_core && lump_key(topo_, r.links[j]) == key) {
        Crossed& c = crossed_[r.links[j]];
        c.lump = it->second;
        c.share = r.share_of(j);
      }
  }
  return it->second;
}

std::size_t FlowNetwork::SharesHash::operator()(
    const std::vector<std::pair<int, double>>& k) const {
  std::size_t h = k.size();
  for (const auto& [link, share] : k)
    h = (h ^ (static_cast<std::size_t>(link) * 0x9e3779b97f4a7c15ULL +
              std::bit_cast<std::uint64_t>(share))) *
        0xff51afd7ed558ccdULL;
  return h;
}

int FlowNetwork::group_of(const Route& r, std::size_t begin, std::size_t end) {
  group_key_.clear();
  for (std::size_t j = begin; j < end; ++j) group_key_.emplace_back(r.links[j], r.share_of(j));
  const auto found = groups_.find(group_key_);
  if (found != groups_.end()) return found->second;
  std::vector<std::pair<int, double>> shares;
  for (std::size_t j = begin; j < end; ++j) {
    Crossed& c = crossed_[r.links[j]];
    STEPSIM_CHECK(topo_.series_next(r.links[j]) < 0 && topo_.series_prev(r.links[j]) < 0,
                  "a spine link in series");
    if (c.constraint < 0)
      c.constraint = system_.add_constraint(topo_.links()[r.links[j]].bandwidth);
    shares.emplace_back(c.constraint, r.share_of(j));
  }
  const int g = system_.add_group(shares);
  groups_.emplace(group_key_, g);
  return g;
}

std::vector<std::pair<std::uint64_t, double>> FlowNetwork::flow_rates() const {
  std::vector<std::pair<std::uint64_t, double>> out;
  for (std::size_t i = 0; i < flows_.size(); ++i)
    if (const Flow& f = flows_[i]; f.listener && f.var >= 0)
      out.emplace_back(f.tag, system_.value(f.var));
  return out;
}

int FlowNetwork::allocate() {
  if (!free_.empty()) {
    const int f = free_.back();
    free_.pop_back();
    return f;
  }
  flows_.emplace_back();
  return static_cast<int>(flows_.size() - 1);
}

double FlowNetwork::weight(double core_weight, double agg_weight, const Route& r,
                           std::size_t i) const {
  const LinkClass c = topo_.links()[r.links[i]].cls;
  return r.share_of(i) * (c == LinkClass::ib_core  ? core_weight
                          : c == LinkClass::ib_agg ? agg_weight
                                                   : 1.0);
}

void FlowNetwork::check_path(const FlowRequest& q) {
  STEPSIM_CHECK(q.core_weight >= 1.0 && q.agg_weight >= 1.0, "bad flow weights");
  STEPSIM_CHECK(q.share.weight > 0.0 && q.share.bound > 0.0, "bad flow share");
}

void FlowNetwork::start(const FlowRequest& q, FlowListener* listener, std::uint64_t tag) {
  const double bytes = q.bytes, multiplicity = q.multiplicity, core_weight = q.core_weight,
               agg_weight = q.agg_weight, steps = q.steps, step_overhead_s = q.step_overhead_s;
  const FlowShare share = q.share;
  STEPSIM_CHECK(bytes >= 0.0 && multiplicity >= 1.0, "bad flow");
  check_path(q);
  STEPSIM_CHECK(listener, "a flow without a listener");
  Route& r = route_;
  topo_.route(q.src, q.dst, q.spread, r);
  const int f = allocate();
  Flow& fl = flows_[f];
  fl.remaining = bytes;
  fl.listener = listener;
  fl.tag = tag;
  fl.var = -1;
  if (fidelity_ == Fidelity::analytic || r.links.empty() || bytes == 0.0) {
    for (std::size_t i = 0; i < r.links.size(); ++i)
      crossed_[r.links[i]].bytes += bytes * weight(core_weight, agg_weight, r, i);
    double bw = share.bound;
    for (std::size_t i = 0; i < r.links.size(); ++i)
      bw = std::min(bw, topo_.links()[r.links[i]].bandwidth / r.share_of(i));
    // One rounding for the whole transfer: α + S/β, up to the next picosecond.
    const Time t = Time::from_seconds((r.latency_s + step_overhead_s) * steps +
                                      (bytes > 0.0 && std::isfinite(bw) ? bytes / bw : 0.0));
    sim_.after(t, this, tag_of(f, kFinish));
    return;
  }
  enqueue(f, sim_.now() + Time::from_seconds((r.latency_s + step_overhead_s) * steps), 0);
}

void FlowNetwork::on_event(engine::Simulator&, std::uint64_t tag) {
  const int f = static_cast<int>(tag >> 2);
  switch (static_cast<EventKind>(tag & 3)) {
    case kFinish:
      finish(f);
      break;
    case kRecompute:
      recompute_pending_ = false;
      recompute();
      break;
    case kDue:
      fire(f);
      break;
  }
}

void FlowNetwork::request_solve() {
  if (recompute_pending_) return;
  recompute_pending_ = true;
  sim_.after(Time(), this, kRecompute);
}

void FlowNetwork::activate(int f) {
  Flow& fl = flows_[f];
  fl.updated = sim_.now();
  ++active_;
  const FlowRequest q = fl.listener->request(fl.tag);
  check_path(q);
  const double core_weight = q.core_weight, agg_weight = q.agg_weight;
  Route& r = route_;
  topo_.route(q.src, q.dst, q.spread, r);
  // A lump is one element, however many of the route's links join by it (they come in a row);
  // a link in series with the one before it (Topology::series_next) joins by that one's.
  entry_lump_.resize(r.links.size());
  in_series_.resize(r.links.size());
  std::uint32_t elements = 0;
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    const int next = topo_.series_next(r.links[i]), prev = topo_.series_prev(r.links[i]);
    STEPSIM_CHECK(next < 0 || (i + 1 < r.links.size() && r.links[i + 1] == next),
                  "a route that leaves a link without the link in series with it");
    STEPSIM_CHECK(prev < 0 || (i > 0 && r.links[i - 1] == prev),
                  "a route that reaches a link without the link in series with it");
    in_series_[i] = prev >= 0;
    STEPSIM_CHECK(!in_series_[i] || weight(core_weight, agg_weight, r, i) ==
                                        weight(core_weight, agg_weight, r, i - 1),
                  "links in series carrying a flow's bytes unequally");
    // A lump's links come in a row: the first of them looks it up for the rest.
    const bool same = i > 0 && entry_lump_[i - 1] >= 0 &&
                      topo_.links()[r.links[i]].cls == LinkClass::ib_core &&
                      lump_key(topo_, r.links[i]) == lump_key(topo_, r.links[i - 1]);
    entry_lump_[i] = same ? entry_lump_[i - 1] : lump_of(q, r, i);
    elements += !same && !in_series_[i];
  }
  // A spread's run of uplinks (or downlinks) of one leaf that is not lumped joins as one group of
  // the system: one element, whose share of each link the group holds.
  entry_group_.assign(r.links.size(), -1);
  const std::vector<Link>& links = topo_.links();
  for (std::size_t i = 0; group_spreads_ && r.spread && i < r.links.size();) {
    std::size_t end = i + 1;
    if (entry_lump_[i] < 0 && links[r.links[i]].cls == LinkClass::ib_core)
      while (end < r.links.size() && links[r.links[end]].cls == LinkClass::ib_core &&
             lump_key(topo_, r.links[end]) == lump_key(topo_, r.links[i]))
        ++end;
    if (end - i > 1) {
      const int g = group_of(r, i, end);
      for (std::size_t j = i; j < end; ++j) entry_group_[j] = g;
      elements -= static_cast<std::uint32_t>(end - i - 1);
    }
    i = end;
  }
  fl.var = system_.add_variable(q.share.weight, q.share.bound, elements);
  if (flow_of_var_.size() <= static_cast<std::size_t>(fl.var)) flow_of_var_.resize(fl.var + 1);
  flow_of_var_[fl.var] = f;
  // Its bytes are counted on its links now, when it joins them (one lookup a link).
  int before = -1;  // the constraint of the link before
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    Crossed& c = crossed_[r.links[i]];
    const double a = weight(core_weight, agg_weight, r, i);
    c.bytes += fl.remaining * a;
    const int lump = entry_lump_[i];
    if (entry_group_[i] >= 0) {
      if (i == 0 || entry_group_[i - 1] != entry_group_[i])
        system_.expand_group(fl.var, entry_group_[i], core_weight);
      continue;
    }
    if (in_series_[i]) {  // the same flows as the link before, alike: its constraint
      c.constraint = before;
      continue;
    }
    if (lump < 0) {
      if (c.constraint < 0) {
        const std::vector<Link>& links = topo_.links();
        const int next = topo_.series_next(r.links[i]);
        c.constraint = system_.add_constraint(
            next < 0 ? links[r.links[i]].bandwidth
                     : std::min(links[r.links[i]].bandwidth, links[next].bandwidth));
      }
      before = c.constraint;
      system_.expand(fl.var, c.constraint, a);
      continue;
    }
    if (i == 0 || lump != entry_lump_[i - 1]) system_.expand(fl.var, lump, core_weight);
  }
  request_solve();
}

void FlowNetwork::progress(Flow& fl, double rate) {
  const Time now = sim_.now();
  if (now > fl.updated)
    fl.remaining = std::max(0.0, fl.remaining - rate * (now - fl.updated).seconds());
  fl.updated = now;
}

void FlowNetwork::finish(int f) {
  Flow& fl = flows_[f];
  if (fl.var >= 0) {
    --active_;
    system_.remove_variable(fl.var);
    request_solve();
  }
  FlowListener* listener = fl.listener;
  const std::uint64_t tag = fl.tag;
  const std::uint32_t due = fl.due;
  fl = Flow{};
  fl.due = due;
  free_.push_back(f);
  listener->on_flow_done(sim_, tag);
}

void FlowNetwork::reschedule(int f) {
  Flow& fl = flows_[f];
  if (fl.queued) ++stale_;
  const double rate = system_.value(fl.var);
  STEPSIM_CHECK(rate > 0.0 && std::isfinite(rate), "active flow without a finite rate");
  // Rounded up to the tolerance grid: flows ending within it finish at one instant, together.
  const std::int64_t grid = kFinishTolerance.picoseconds();
  const std::int64_t end = (sim_.now() + Time::from_ratio(fl.remaining, rate)).picoseconds();
  const std::int64_t at = end + (end % grid == 0 ? 0 : grid - end % grid);
  fl.queued = 0;  // until enqueued: drop_stale() below takes its old entry as stale
  if (fl.due == kMaxGen) drop_stale();
  fl.due = fl.due == kMaxGen ? 1 : fl.due + 1;
  fl.queued = 1;
  enqueue(f, Time::ps(at), fl.due);
  if (stale_ > 2 * active_ + 4096) drop_stale();
}

bool FlowNetwork::current(const Due& d) const {
  const Flow& fl = flows_[d.flow];
  return fl.listener && fl.queued && fl.due == d.gen;
}

void FlowNetwork::enqueue(int f, Time at, std::uint32_t gen) {
  // Most flows of a re-solve go where the one before went.
  if (last_bucket_ >= 0 && buckets_[last_bucket_].live && buckets_[last_bucket_].at == at) {
    put(buckets_[last_bucket_], {f, gen});
    return;
  }
  const auto [it, added] = bucket_at_.try_emplace(at.picoseconds(), -1);
  if (added) {
    if (free_buckets_.empty()) {
      it->second = static_cast<int>(buckets_.size());
      buckets_.emplace_back();
    } else {
      it->second = free_buckets_.back();
      free_buckets_.pop_back();
    }
    Bucket& b = buckets_[it->second];
    b.at = at;
    b.event = sim_.at(at, this, tag_of(it->second, kDue));
    b.live = true;
  }
  put(buckets_[it->second], {f, gen});
  last_bucket_ = it->second;
}
void FlowNetwork::put(Bucket& b, Due d) {
  std::vector<Due>& q = b.flows;
  if (q.size() == q.capacity() && q.size() >= kKeptEntries && firing_.empty() &&
      firing_.capacity() > q.size()) {
    firing_.assign(q.begin(), q.end());
    q.swap(firing_);
    firing_.clear();
  }
  q.push_back(d);
  ++queued_;
}

void FlowNetwork::fire(int bucket) {
  Bucket& b = buckets_[bucket];
  bucket_at_.erase(b.at.picoseconds());
  firing_.clear();
  firing_.swap(b.flows);
  b.live = false;
  free_buckets_.push_back(bucket);
  queued_ -= firing_.size();
  // The flows' records, their variables' and those's elements are fetched ahead (a bucket can
  // hold a hundred thousand completions, each a cache miss at every step of that chain).
  const std::size_t n = firing_.size();
  auto var_at = [&](std::size_t j) {  // the variable of entry j's flow, if a completion's
    return j < n && firing_[j].gen != 0 ? flows_[firing_[j].flow].var : -1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (i + 24 < n) flows_.prefetch(firing_[i + 24].flow);
    if (const int v = var_at(i + 12); v >= 0) system_.prefetch(v);
    if (const int v = var_at(i + 6); v >= 0) system_.prefetch_elements(v);
    const Due& d = firing_[i];
    if (d.gen == 0)
      activate(d.flow);
    else if (current(d))
      finish(d.flow);
    else
      --stale_;
  }
  firing_.clear();  // its array kept, for the next bucket that outgrows its own (put)
}

void FlowNetwork::drop_stale() {
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    Bucket& b = buckets_[i];
    if (!b.live) continue;
    queued_ -= std::erase_if(b.flows, [&](const Due& d) { return d.gen != 0 && !current(d); });
    if (!b.flows.empty()) continue;
    if (b.flows.capacity() > kKeptEntries) std::vector<Due>().swap(b.flows);
    sim_.cancel(b.event);
    bucket_at_.erase(b.at.picoseconds());
    b.live = false;
    free_buckets_.push_back(static_cast<int>(i));
  }
  stale_ = 0;
}

// A flow whose rate is unchanged keeps its completion entry: it still ends at the same instant. One
// whose rate changed has moved at its old rate until now.
// A re-solve can take most of a second: a signal or --max-wall is heard before it.
void FlowNetwork::recompute() {
  sim_.check_control();
  const std::vector<engine::MaxMinSystem::Change>& changes = system_.solve();
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (i + 16 < changes.size()) {
      flows_.prefetch(flow_of_var_[changes[i + 16].var]);
      system_.prefetch(changes[i + 16].var);
    }
    const auto& c = changes[i];
    const int f = flow_of_var_[c.var];
    progress(flows_[f], c.old_value);
    reschedule(f);
  }
}

}  // namespace stepsim::hw
