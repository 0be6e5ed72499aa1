#include "sim/workload/zero3_placement.hpp"

#include <algorithm>
#include <limits>

#include "sim/workload/held_params.hpp"

namespace stepsim::workload {

namespace {

constexpr int kSlotBase = -kMtpHead;  // layer index -> slot: the lowest index, kMtpHead, is 0

std::size_t slot(int layer) {
  return static_cast<std::size_t>(layer + kSlotBase);
}

hw::Kernel copy_kernel(const char* op, double bytes) {
  hw::Kernel k;
  k.set_op(op);
  k.cls = &hw::kMemoryClass;
  k.pattern = spec::MemoryPattern::copy;
  k.hbm_bytes = 2.0 * bytes;  // read and written
  return k;
}

}  // namespace

std::vector<GatherUnit> gather_units(const spec::Zero3Spec& z, const ParallelPlan& plan,
                                     const ModelCost& cost) {
  std::vector<GatherUnit> out;
  auto add = [&](const LayerCost& l) {
    if (z.unit == spec::Zero3Unit::layer) {
      out.push_back({l.index, {}, layer_params(plan, cost, l.index)});
      return;
    }
    for (const OpCost& op : l.ops) {
      const HeldParams p = op_params(plan, op);
      if (p.total() > 0.0 && p.total() >= z.persist_below) out.push_back({l.index, op.name, p});
    }
  };
  add(cost.embedding());
  for (const LayerCost& l : cost.layers()) add(l);
  add(cost.head());
  if (!cost.mtp_head().ops.empty()) add(cost.mtp_head());
  return out;
}

double zero3_buffer_bytes(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                          const ModelCost& cost, const HeldParams& held) {
  const spec::Zero3Spec& z = s.parallel.zero3;
  const auto& pr = s.training.precision;
  double largest = 0.0;
  for (const GatherUnit& u : gather_units(z, plan, cost))
    largest = std::max(largest, u.params.total());
  double live = largest * (z.prefetch + 1);
  if (z.prefetch_params > 0.0)
    live =
        largest + std::min(z.prefetch_params + largest,
                           z.max_live > 0.0 ? z.max_live : std::numeric_limits<double>::infinity());
  if (!z.reshard_after_forward) live = std::max(live, held.total());
  const double bucket = z.bucket_params > 0.0 ? std::max(z.bucket_params, largest) : largest;
  return live * spec::bytes_per_element(pr.params) + bucket * spec::bytes_per_element(pr.grads);
}

struct Zero3Placement::Use {
  int unit = -1;
  std::size_t first = 0, last = 0;  // the chain positions of its first and last work
  bool gather = false;
  bool last_use = false;  // the unit's last use in the chain
  int wait_back = 1;      // its gather waits for the end of the use this many back
  // Calls of the unit's module it spans: a recomputed forward and the backward right after it
  // are one use but two calls in a framework's trace (what the reuse distance counts).
  int calls = 1;
  bool recompute = false;  // its last piece reruns a forward
};

Zero3Placement::Zero3Placement(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                               const ModelCost& cost, CollectiveMaker& make)
    : spec_(s), z_(s.parallel.zero3), make_(make) {
  const std::size_t n = slot(static_cast<int>(cost.layers().size()));
  layer_unit_.assign(n, -1);
  op_units_.resize(n);
  for (GatherUnit& u : gather_units(z_, plan, cost)) {
    const int id = static_cast<int>(units_.size());
    if (z_.unit == spec::Zero3Unit::layer)
      layer_unit_[slot(u.layer)] = id;
    else
      op_units_[slot(u.layer)].push_back({std::move(u.op), id});
    units_.push_back(u.params);
  }
}

int Zero3Placement::unit_of(int layer, const hw::Kernel& k) const {
  if (layer == kNoLayer) return -1;
  const std::size_t at = slot(layer);
  if (z_.unit == spec::Zero3Unit::layer) return layer_unit_[at];
  const std::string_view op(k.op.data());
  for (const auto& [name, unit] : op_units_[at])
    if (op == name) return unit;
  return -1;
}

Work Zero3Placement::collective(StepOpKind kind, net::CollectiveOp op, const HeldParams& p,
                                double bytes_per, int layer) const {
  Work w;
  w.stream = StreamKind::comm;
  w.kind = kind;
  w.part = kind == StepOpKind::zero_gather ? "gather params" : "reduce-scatter grads";
  w.layer = layer;
  // The earlier model kept a zero-byte expert collective beside every dense one; the others
  // issue what holds bytes.
  const bool all = z_.impl == spec::Zero3Impl::ideal;
  if (all || p.dense > 0.0) w.collectives.push_back(make_(op, p.dense * bytes_per, GroupRole::dp));
  if (all || p.routed > 0.0)
    w.collectives.push_back(make_(op, p.routed * bytes_per, GroupRole::edp));
  w.couples = true;
  return w;
}

// Cuts the chain's kernel runs where the unit changes (a run's leading kernels without a unit
// stay a piece of their own) and lists the uses.
std::vector<Zero3Placement::Use> Zero3Placement::uses_of(Chain& c) const {
  Chain cut;
  for (Work& w : c) {
    if (w.stream != StreamKind::compute || w.kernels.empty()) {
      cut.push_back(std::move(w));
      continue;
    }
    std::vector<std::vector<hw::Kernel>> pieces;
    int current = -2;  // the unit of the piece being filled (-1 none yet, -2 no piece)
    for (hw::Kernel& k : w.kernels) {
      const int u = unit_of(w.layer, k);
      if (current == -2 || (u >= 0 && u != current)) {
        pieces.emplace_back();
        current = u;
      }
      pieces.back().push_back(std::move(k));
    }
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      Work p = w;
      p.kernels = std::move(pieces[i]);
      if (i > 0) p.after_prev = true;
      if (i + 1 < pieces.size()) p.blocks_next = true;
      cut.push_back(std::move(p));
    }
  }
  c = std::move(cut);

  std::vector<Use> uses;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].stream != StreamKind::compute || c[i].kernels.empty()) continue;
    const int u = unit_of(c[i].layer, c[i].kernels.front());
    if (u < 0) continue;
    const bool again = c[i].kernels.front().recompute;
    if (!uses.empty() && uses.back().unit == u) {
      uses.back().last = i;
      uses.back().calls += uses.back().recompute != again;
      uses.back().recompute = again;
      continue;
    }
    Use use;
    use.unit = u;
    use.first = use.last = i;
    use.recompute = again;
    uses.push_back(use);
  }
  for (std::size_t k = uses.size(); k-- > 0;) {
    bool later = false;
    for (std::size_t j = k + 1; j < uses.size() && !later; ++j)
      later = uses[j].unit == uses[k].unit;
    uses[k].last_use = !later;
  }
  return uses;
}

void Zero3Placement::place(Chain& c, bool backward, bool grads) const {
  for (Work& w : c) w.ends_unit = false;
  std::vector<Use> uses = uses_of(c);
  const auto elements = [&](const Use& u) { return units_[u.unit].total(); };

  // Which uses gather, and how far back the gather may start.
  const bool gathers = !backward || z_.reshard_after_forward;
  for (std::size_t k = 0; k < uses.size() && gathers; ++k) {
    Use& u = uses[k];
    u.gather = true;
    double between = 0.0;
    for (std::size_t j = k; j-- > 0;) {
      if (uses[j].unit == u.unit) {
        u.gather = z_.max_reuse > 0.0 && between >= z_.max_reuse;
        break;
      }
      between += elements(uses[j]) * uses[j].calls;
    }
    if (!u.gather) continue;
    if (z_.prefetch_params <= 0.0) {
      u.wait_back = z_.prefetch + 1;
      continue;
    }
    std::size_t v = k;
    double in_flight = 0.0;
    while (v > 0) {
      const double live = z_.max_live > 0.0 ? z_.max_live - elements(uses[v - 1])
                                            : std::numeric_limits<double>::infinity();
      if (in_flight >= std::min(z_.prefetch_params, live)) break;
      --v;
      if (uses[v].gather) in_flight += elements(uses[v]);
    }
    u.wait_back = static_cast<int>(k - v) + 1;
  }

  const auto& pr = spec_.training.precision;
  const double pb = spec::bytes_per_element(pr.params), gb = spec::bytes_per_element(pr.grads);
  Chain out;
  std::vector<Work> deferred;  // `ideal`: reduce-scatters issued after the next gather
  std::vector<int> bucket;     // units whose gradients wait in the reduce bucket
  double bucket_elements = 0.0;
  int bucket_layer = kNoLayer;  // the layer of its last unit
  auto reduce = [&](const std::vector<int>& units, int layer) {
    HeldParams p;
    for (int unit : units) {
      p.dense += units_[unit].dense;
      p.routed += units_[unit].routed;
    }
    Work w = collective(StepOpKind::zero_scatter, net::CollectiveOp::reduce_scatter, p, gb, layer);
    w.blocks_next = false;
    if (z_.own_stream) {
      w.stream = StreamKind::dp;
      out.push_back(std::move(w));
    } else {
      deferred.push_back(std::move(w));
    }
  };
  std::size_t next = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    Work w = std::move(c[i]);
    const bool starts = next < uses.size() && uses[next].first == i;
    if (starts && uses[next].gather) {
      const Use& u = uses[next];
      Work g = collective(StepOpKind::zero_gather, net::CollectiveOp::all_gather, units_[u.unit],
                          pb, w.layer);
      g.after_prev = false;
      g.blocks_next = false;
      g.feeds_next = true;
      g.wait_units_back = u.wait_back;
      out.push_back(std::move(g));
      if (z_.copies)
        w.kernels.insert(w.kernels.begin(),
                         copy_kernel("fsdp copy-out", units_[u.unit].total() * pb));
      for (Work& d : deferred) out.push_back(std::move(d));
      deferred.clear();
    }
    const bool ends = next < uses.size() && uses[next].last == i;
    if (!ends) {
      out.push_back(std::move(w));
      continue;
    }
    const Use& u = uses[next++];
    w.ends_unit = true;
    const bool reduced = grads && u.last_use;
    if (reduced && z_.copies)
      w.kernels.push_back(copy_kernel("fsdp copy-in", units_[u.unit].total() * gb));
    const int layer = w.layer;
    out.push_back(std::move(w));
    if (!reduced) continue;
    if (z_.bucket_params <= 0.0) {
      reduce({u.unit}, layer);
      continue;
    }
    if (!bucket.empty() && bucket_elements + elements(u) > z_.bucket_params) {
      reduce(bucket, bucket_layer);
      bucket.clear();
      bucket_elements = 0.0;
    }
    bucket.push_back(u.unit);
    bucket_elements += elements(u);
    bucket_layer = layer;
  }
  if (!bucket.empty()) reduce(bucket, bucket_layer);
  for (Work& d : deferred) out.push_back(std::move(d));
  c = std::move(out);
}

}  // namespace stepsim::workload
