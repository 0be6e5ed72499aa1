#include "sim/hw/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "sim/engine/check.hpp"

namespace stepsim::hw {

using engine::Time;

FlowNetwork::FlowNetwork(engine::Simulator& sim, const Topology& topo, Fidelity fidelity)
    : sim_(sim), topo_(topo), fidelity_(fidelity) {
  link_flows_.resize(topo.links().size());
  link_bytes_.assign(topo.links().size(), 0.0);
  link_stamp_.assign(topo.links().size(), 0);
  link_pos_.assign(topo.links().size(), 0);
}

double FlowNetwork::link_rate(int link) const {
  double r = 0.0;
  for (int f : link_flows_[link]) r += flows_[f].rate * weight(flows_[f], link);
  return r;
}

std::vector<std::pair<std::uint64_t, double>> FlowNetwork::flow_rates() const {
  std::vector<std::pair<std::uint64_t, double>> out;
  for (const Flow& f : flows_)
    if (f.used && f.active) out.emplace_back(f.tag, f.rate);
  return out;
}

int FlowNetwork::allocate() {
  if (!free_.empty()) {
    const int f = free_.back();
    free_.pop_back();
    return f;
  }
  flows_.emplace_back();
  flow_stamp_.push_back(0);
  return static_cast<int>(flows_.size() - 1);
}

double FlowNetwork::weight(const Flow& f, int link) const {
  return topo_.links()[link].cls == LinkClass::ib_core ? f.core_weight : 1.0;
}

void FlowNetwork::start(int src, int dst, double bytes, FlowListener* listener, std::uint64_t tag,
                        double multiplicity, double core_weight, double steps,
                        double step_overhead_s) {
  STEPSIM_CHECK(bytes >= 0.0 && multiplicity >= 1.0 && core_weight >= 1.0, "bad flow");
  const Route r = topo_.route(src, dst);
  const int f = allocate();
  Flow& fl = flows_[f];
  fl.links = r.links;
  fl.remaining = bytes;
  fl.rate = 0.0;
  fl.multiplicity = multiplicity;
  fl.core_weight = core_weight;
  fl.listener = listener;
  fl.tag = tag;
  fl.active = false;
  fl.used = true;
  for (int l : fl.links) link_bytes_[l] += bytes * weight(fl, l);
  if (fidelity_ == Fidelity::analytic || fl.links.empty() || bytes == 0.0) {
    double bw = INFINITY;
    for (int l : fl.links) bw = std::min(bw, topo_.links()[l].bandwidth);
    // One rounding for the whole transfer: α + S/β, up to the next picosecond.
    const Time t = Time::from_seconds((r.latency_s + step_overhead_s) * steps +
                                      (bytes > 0.0 && std::isfinite(bw) ? bytes / bw : 0.0));
    fl.done = sim_.after(t, this, tag_of(f, kFinish));
    return;
  }
  sim_.after(Time::from_seconds((r.latency_s + step_overhead_s) * steps), this,
             tag_of(f, kActivate));
}

void FlowNetwork::on_event(engine::Simulator&, std::uint64_t tag) {
  const int f = static_cast<int>(tag >> 2);
  switch (static_cast<EventKind>(tag & 3)) {
    case kActivate:
      activate(f);
      break;
    case kFinish:
      finish(f);
      break;
    case kRecompute:
      recompute_pending_ = false;
      recompute();
      break;
  }
}

void FlowNetwork::mark_dirty(int link) {
  dirty_links_.push_back(link);
  if (!recompute_pending_) {
    recompute_pending_ = true;
    sim_.after(Time(), this, kRecompute);
  }
}

void FlowNetwork::activate(int f) {
  Flow& fl = flows_[f];
  fl.active = true;
  fl.updated = sim_.now();
  ++active_;
  for (int l : fl.links) {
    link_flows_[l].push_back(f);
    mark_dirty(l);
  }
}

void FlowNetwork::progress(Flow& fl) {
  const Time now = sim_.now();
  if (fl.active && now > fl.updated)
    fl.remaining = std::max(0.0, fl.remaining - fl.rate * (now - fl.updated).seconds());
  fl.updated = now;
}

void FlowNetwork::finish(int f) {
  Flow& fl = flows_[f];
  if (fl.active) {
    --active_;
    for (int l : fl.links) {
      auto& v = link_flows_[l];
      const auto it = std::find(v.begin(), v.end(), f);
      STEPSIM_CHECK(it != v.end(), "flow missing from its link");
      *it = v.back();
      v.pop_back();
      mark_dirty(l);
    }
  }
  FlowListener* listener = fl.listener;
  const std::uint64_t tag = fl.tag;
  fl = Flow{};
  free_.push_back(f);
  if (listener) listener->on_flow_done(sim_, tag);
}

void FlowNetwork::reschedule(int f) {
  Flow& fl = flows_[f];
  sim_.cancel(fl.done);
  STEPSIM_CHECK(fl.rate > 0.0, "active flow without bandwidth");
  // Rounded up to the tolerance grid: flows ending within it finish at one instant, together.
  const std::int64_t grid = kFinishTolerance.picoseconds();
  const std::int64_t end = (sim_.now() + Time::from_ratio(fl.remaining, fl.rate)).picoseconds();
  const std::int64_t up = end % grid == 0 ? 0 : grid - end % grid;
  fl.done = sim_.at(Time::ps(end) + Time::ps(up), this, tag_of(f, kFinish));
}

void FlowNetwork::recompute() {
  if (dirty_links_.empty()) return;
  ++recomputations_;
  ++stamp_;
  // The connected component of links and flows reachable from the dirty links.
  std::vector<int> comp_links, comp_flows;
  std::vector<int> stack;
  for (int l : dirty_links_)
    if (link_stamp_[l] != stamp_) {
      link_stamp_[l] = stamp_;
      stack.push_back(l);
    }
  dirty_links_.clear();
  while (!stack.empty()) {
    const int l = stack.back();
    stack.pop_back();
    comp_links.push_back(l);
    for (int f : link_flows_[l]) {
      if (flow_stamp_[f] == stamp_) continue;
      flow_stamp_[f] = stamp_;
      comp_flows.push_back(f);
      for (int l2 : flows_[f].links)
        if (link_stamp_[l2] != stamp_) {
          link_stamp_[l2] = stamp_;
          stack.push_back(l2);
        }
    }
  }
  old_rate_.resize(comp_flows.size());
  for (std::size_t i = 0; i < comp_flows.size(); ++i) {
    progress(flows_[comp_flows[i]]);
    old_rate_[i] = flows_[comp_flows[i]].rate;
  }

  // Progressive filling over the component.
  const auto& links = topo_.links();
  // unfixed: the flows not yet fixed on each link; load: their summed weights.
  std::vector<double> cap(comp_links.size()), load(comp_links.size(), 0.0);
  std::vector<int> unfixed(comp_links.size());
  for (std::size_t i = 0; i < comp_links.size(); ++i) {
    link_pos_[comp_links[i]] = static_cast<int>(i);
    cap[i] = links[comp_links[i]].bandwidth;
    unfixed[i] = static_cast<int>(link_flows_[comp_links[i]].size());
    for (int f : link_flows_[comp_links[i]]) load[i] += weight(flows_[f], comp_links[i]);
  }
  using Item = std::pair<double, int>;  // (share, position)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (std::size_t i = 0; i < comp_links.size(); ++i)
    if (unfixed[i] > 0) heap.push({cap[i] / load[i], static_cast<int>(i)});
  ++stamp_;  // now marks fixed flows
  // Fixing a flow at the smallest share s leaves every other link's share c/n no smaller
  // ((c - s)/(n - 1) >= c/n when s <= c/n), so a link's key in the heap is a lower bound of its
  // share: a popped link whose share has grown goes back in with its new share, and one popped at
  // its current share is the true minimum. Each link sits in the heap once.
  while (!heap.empty()) {
    const auto [key, i] = heap.top();
    heap.pop();
    if (unfixed[i] == 0) continue;
    const double share = load[i] > 0.0 ? cap[i] / load[i] : INFINITY;
    STEPSIM_CHECK(std::isfinite(share), "link share is not a number");
    if (share != key) {
      heap.push({share, i});
      continue;
    }
    for (int f : link_flows_[comp_links[i]]) {
      if (flow_stamp_[f] == stamp_) continue;
      flow_stamp_[f] = stamp_;
      Flow& fl = flows_[f];
      fl.rate = share;
      for (int l2 : fl.links) {
        const int j = link_pos_[l2];
        const double w = weight(fl, l2);
        cap[j] = std::max(0.0, cap[j] - share * w);
        --unfixed[j];
        load[j] = unfixed[j] == 0 ? 0.0 : std::max(static_cast<double>(unfixed[j]), load[j] - w);
      }
    }
  }
  // A flow whose rate is unchanged keeps its finish event: it still ends at the same instant.
  for (std::size_t i = 0; i < comp_flows.size(); ++i) {
    STEPSIM_CHECK(flows_[comp_flows[i]].rate > 0.0, "active flow without bandwidth");
    if (flows_[comp_flows[i]].rate != old_rate_[i]) reschedule(comp_flows[i]);
  }
}

}  // namespace stepsim::hw
