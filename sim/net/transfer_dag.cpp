#include "sim/net/transfer_dag.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "sim/engine/check.hpp"

namespace stepsim::net {

using engine::Time;

TransferDag make_dag(const CollectivePlan& plan, int chunks, int slots) {
  TransferDag dag;
  const int phases = static_cast<int>(plan.phases.size());
  const int cut = std::max(1, chunks);
  dag.cut = cut;
  dag.slots = std::max(1, slots);
  if (phases == 1) {
    const double r = static_cast<double>(plan.phases[0].repeat);
    dag.nodes.push_back({0, 0, {}, r, r, cut - 1.0});
    return dag;
  }
  dag.chunks = cut;
  const int c = dag.chunks;
  // Node (p, j) at p·c + j: every dependency has a smaller index.
  for (int p = 0; p < phases; ++p) {
    const double r = static_cast<double>(plan.phases[p].repeat);
    for (int j = 0; j < c; ++j) {
      DagNode n{p, j, {}, r / c, j == 0 ? r : 0.0, j == 0 ? 0.0 : 1.0};
      if (p > 0) n.deps.push_back((p - 1) * c + j);
      if (j > 0) n.deps.push_back(p * c + j - 1);
      dag.nodes.push_back(std::move(n));
    }
  }
  return dag;
}

hw::FlowNetwork::Lumps spine_lumps(const CollectivePlan& plan, const hw::Topology& topo) {
  const bool spreads = std::any_of(plan.phases.begin(), plan.phases.end(), [](const Phase& ph) {
    return std::any_of(ph.transfers.begin(), ph.transfers.end(),
                       [](const Transfer& t) { return t.spread != nullptr; });
  });
  if (!spreads) return {};
  // Per group of leaf-spine links: the spread its transfers take (null: one does not spread), or
  // mixed.
  std::unordered_map<int, const std::vector<double>*> seen;
  std::unordered_set<int> mixed;
  hw::Route r;
  for (const Phase& ph : plan.phases)
    for (const Transfer& t : ph.transfers) {
      route_of(topo, t, r);
      const std::vector<double>* spread = r.spread ? t.spread.get() : nullptr;
      int last = -1;
      for (int l : r.links) {
        if (topo.links()[l].cls != hw::LinkClass::ib_core) continue;
        const int key = hw::FlowNetwork::lump_key(topo, l);
        if (key == last) continue;
        last = key;
        const auto [it, added] = seen.try_emplace(key, spread);
        if (!added && it->second != spread && (!spread || !it->second || *spread != *it->second))
          mixed.insert(key);
      }
    }
  hw::FlowNetwork::Lumps lumps;
  for (const auto& [key, spread] : seen)
    if (spread && !mixed.contains(key)) lumps.emplace(key, *spread);
  return lumps;
}

namespace {

class DagRunner final : public hw::FlowListener, public engine::EventHandler {
 public:
  DagRunner(const CollectivePlan& plan, const TransferDag& dag, const hw::Topology& topo,
            hw::Fidelity fidelity)
      : plan_(plan),
        dag_(dag),
        topo_(topo),
        net_(sim_, topo, fidelity,
             fidelity == hw::Fidelity::flow ? spine_lumps(plan, topo) : hw::FlowNetwork::Lumps()) {
    const std::size_t n = dag.nodes.size();
    waiting_.resize(n);
    outstanding_.assign(n, 0);
    succ_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      waiting_[i] = static_cast<int>(dag.nodes[i].deps.size());
      for (int d : dag.nodes[i].deps) succ_[d].push_back(static_cast<int>(i));
    }
    run_.start.assign(n, Time());
    run_.finish.assign(n, Time());
  }

  DagRun run(const engine::RunControl* control) {
    if (plan_.base_s + plan_.setup_s > 0.0)
      sim_.after(engine::Time::from_seconds(plan_.base_s + plan_.setup_s), this, kStart);
    else
      start_roots();
    engine::RunLimits limits;
    limits.control = control;
    const auto stats = sim_.run(limits);
    std::vector<std::string> stuck;
    if (delivered_ < dag_.nodes.size())
      stuck.push_back(plan_.algorithm + ": transfers undelivered");
    engine::require_finished(stats, stuck);
    run_.events = stats.events;
    return std::move(run_);
  }

  void on_flow_done(engine::Simulator&, std::uint64_t tag) override {
    const std::uint64_t node = tag >> 32;
    STEPSIM_CHECK(outstanding_[node] > 0, "more completions than transfers");
    if (--outstanding_[node] == 0) deliver(static_cast<int>(node));
  }
  hw::FlowRequest request(std::uint64_t tag) const override {
    const DagNode& n = dag_.nodes[tag >> 32];
    return path(plan_.phases[n.phase].transfers[tag & 0xFFFFFFFFu]);
  }
  // A node with nothing to move is delivered by an event at its start, so that its successors
  // start from the event loop as every other's do.
  void on_event(engine::Simulator&, std::uint64_t node) override {
    if (node == kStart)
      start_roots();
    else
      deliver(static_cast<int>(node));
  }

 private:
  static constexpr std::uint64_t kStart = ~std::uint64_t{0};
  // A flow's tag: its node, and its transfer's place in the node's phase.
  static std::uint64_t flow_tag(int node, std::size_t transfer) {
    return (static_cast<std::uint64_t>(node) << 32) | transfer;
  }
  void start_roots() {
    for (std::size_t i = 0; i < dag_.nodes.size(); ++i)
      if (waiting_[i] == 0) begin(static_cast<int>(i));
  }
  // What the flow of `t` crosses and how it weighs on its links.
  static hw::FlowRequest path(const Transfer& t) {
    hw::FlowRequest q;
    q.src = t.src;
    q.dst = t.dst;
    q.multiplicity = t.multiplicity;
    q.core_weight = t.core_weight;
    q.agg_weight = t.agg_weight;
    if (t.spread) q.spread = *t.spread;
    return q;
  }
  void begin(int i) {
    const DagNode& n = dag_.nodes[i];
    const Phase& ph = plan_.phases[n.phase];
    STEPSIM_CHECK(ph.transfers.size() <= 0xFFFFFFFFu, "a phase of 2^32 transfers or more");
    const double share = n.share;
    run_.start[i] = sim_.now();
    const hw::Topology& topo = topo_;
    for (std::size_t k = 0; k < ph.transfers.size(); ++k) {
      const Transfer& t = ph.transfers[k];
      ++outstanding_[i];
      const bool across = topo.node_of(t.src) != topo.node_of(t.dst);
      const double sync = across ? plan_.net_sync_s : plan_.nvlink_sync_s;
      // Later chunks' latency, in steps of this transfer's own (route latency + sync).
      double steps = n.first_steps;
      if (n.later_chunks > 0.0) {
        hw::Route& r = route_;
        route_of(topo, t, r);
        const double alpha = r.latency_s + sync;
        const double chunk_s = t.bytes / dag_.cut / topo.bottleneck(r).first;
        if (alpha > 0.0)
          steps += n.later_chunks * later_chunk_latency(alpha, chunk_s, dag_.slots) / alpha;
      }
      hw::FlowRequest q = path(t);
      q.bytes = t.bytes * share;
      q.steps = steps;
      q.step_overhead_s = sync;
      net_.start(q, this, flow_tag(i, k));
    }
    if (outstanding_[i] == 0) sim_.after(Time(), this, static_cast<std::uint64_t>(i));
  }

  void deliver(int i) {
    run_.finish[i] = sim_.now();
    run_.end = std::max(run_.end, sim_.now());
    ++delivered_;
    for (int s : succ_[i])
      if (--waiting_[s] == 0) begin(s);
  }

  const CollectivePlan& plan_;
  const TransferDag& dag_;
  const hw::Topology& topo_;
  engine::Simulator sim_;
  hw::FlowNetwork net_;
  hw::Route route_;  // scratch
  std::vector<int> waiting_;
  std::vector<std::size_t> outstanding_;
  std::vector<std::vector<int>> succ_;
  std::size_t delivered_ = 0;
  DagRun run_;
};

}  // namespace

DagRun run_dag(const CollectivePlan& plan, const TransferDag& dag, const hw::Topology& topo,
               hw::Fidelity fidelity, const engine::RunControl* control) {
  return DagRunner(plan, dag, topo, fidelity).run(control);
}

}  // namespace stepsim::net
