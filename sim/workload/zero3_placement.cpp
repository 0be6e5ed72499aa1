#include "sim/workload/zero3_placement.hpp"

#include <algorithm>
#include <cmath>
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

// An op's parameter tensors per GPU: a GEMM's weights, one per copy it owns (each expert's; routed
// experts split over ep), else one.
HeldParams op_tensors(const ParallelPlan& plan, const OpCost& op) {
  if (op.params <= 0.0) return {};
  double t = 1.0;
  if (op.cls == OpClass::gemm && op.n * op.k > 0.0)
    t = std::max(1.0, std::round(op.params / (op.n * op.k)));
  if (op.routed_expert) return {0.0, std::max(1.0, std::round(t / plan.ep))};
  return {t, 0.0};
}

}  // namespace

std::vector<GatherUnit> gather_units(const spec::Zero3Spec& z, const ParallelPlan& plan,
                                     const ModelCost& cost) {
  std::vector<GatherUnit> out;
  auto add = [&](const LayerCost& l) {
    if (z.unit == spec::Zero3Unit::layer) {
      HeldParams t;
      for (const OpCost& op : l.ops) {
        const HeldParams ot = op_tensors(plan, op);
        t.dense += ot.dense;
        t.routed += ot.routed;
      }
      out.push_back({l.index, {}, layer_params(plan, cost, l.index), t});
      return;
    }
    for (const OpCost& op : l.ops) {
      const HeldParams p = op_params(plan, op);
      if (p.total() > 0.0 && p.total() >= z.persist_below)
        out.push_back({l.index, op.name, p, op_tensors(plan, op)});
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
  double largest = 0.0, gathered = 0.0;
  for (const GatherUnit& u : gather_units(z, plan, cost)) {
    largest = std::max(largest, u.params.total());
    gathered += u.params.total();
  }
  double live = largest * (z.prefetch + 1);
  if (z.prefetch_params > 0.0) live = largest + std::min(z.prefetch_params + largest, z.max_live);
  live = std::min(live, gathered);  // no more than every unit there is
  if (!z.reshard_after_forward) live = std::max(live, held.total());
  // Modules never partitioned: whole on every GPU.
  const double persisted = std::max(0.0, held.total() - gathered);
  const double bucket = z.bucket_params > 0.0 ? std::max(z.bucket_params, largest) : largest;
  return (live + persisted) * spec::bytes_per_element(pr.params) +
         bucket * spec::bytes_per_element(pr.grads);
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
    tensors_.push_back(u.tensors);
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
                                const HeldParams& tensors, double bytes_per, int layer) const {
  Work w;
  w.stream = StreamKind::comm;
  w.kind = kind;
  w.part = kind == StepOpKind::zero_gather ? "gather params" : "reduce-scatter grads";
  w.layer = layer;
  // The earlier model kept a zero-byte expert collective beside every dense one; the others
  // issue what holds bytes.
  const bool all = z_.impl == spec::Zero3Impl::ideal;
  auto add = [&](double elements, double count, GroupRole group) {
    const int n = z_.per_tensor ? std::max(1, static_cast<int>(count)) : 1;
    for (int i = 0; i < n; ++i) w.collectives.push_back(make_(op, elements * bytes_per / n, group));
  };
  if (all || p.dense > 0.0) add(p.dense, tensors.dense, GroupRole::dp);
  if (all || p.routed > 0.0) add(p.routed, tensors.routed, GroupRole::edp);
  w.couples = true;
  if (z_.host_syncs)
    w.host_sync = kind == StepOpKind::zero_gather ? HostSync::device : HostSync::stream;
  return w;
}

std::vector<Zero3Placement::Issue> Zero3Placement::issue_points(
    const std::vector<Use>& uses) const {
  std::vector<Issue> out(uses.size());
  if (!z_.host_syncs) {
    for (std::size_t k = 0; k < uses.size(); ++k)
      if (uses[k].gather) {
        out[k].gathers.push_back(k);
        out[k].fetched = true;
      }
    return out;
  }
  const double live_cap = z_.max_live;
  std::vector<bool> done(uses.size(), false);  // its gather is issued
  std::vector<std::size_t> in_flight;
  for (std::size_t v = 0; v < uses.size(); ++v) {
    Issue& is = out[v];
    is.synced = std::find(in_flight.begin(), in_flight.end(), v) != in_flight.end();
    if (uses[v].gather && !done[v]) {
      is.gathers.push_back(v);
      is.fetched = is.synced = true;
      done[v] = true;
    }
    if (is.synced) in_flight.clear();
    if (!in_flight.empty() || units_[uses[v].unit].total() >= live_cap) continue;
    double elements = 0.0;
    int count = 0;
    for (std::size_t w = v + 1; w < uses.size(); ++w) {
      if (z_.prefetch_params > 0.0 ? elements >= z_.prefetch_params : count >= z_.prefetch) break;
      if (!uses[w].gather || done[w]) continue;
      is.gathers.push_back(w);
      done[w] = true;
      in_flight.push_back(w);
      elements += units_[uses[w].unit].total();
      ++count;
    }
  }
  return out;
}

// The gathers use `is` issues, in the hook's order: each (with per_tensor) after the zeroing of
// its buffer; the fetch's synchronisation before the first one its prefetch issues.
void Zero3Placement::issue_gathers(Chain& out, const Issue& is, const std::vector<Use>& uses,
                                   int layer, double pb) const {
  const std::size_t prefetch_from = is.fetched ? 1 : 0;
  for (std::size_t n = 0; n < is.gathers.size(); ++n) {
    const Use& u = uses[is.gathers[n]];
    const HeldParams& p = units_[u.unit];
    Work g = collective(StepOpKind::zero_gather, net::CollectiveOp::all_gather, p, tensors_[u.unit],
                        pb, layer);
    g.after_prev = false;
    g.blocks_next = false;
    // With host synchronisations the uses wait for their gathers through them.
    g.feeds_next = !z_.host_syncs;
    g.wait_units_back = z_.host_syncs ? -1 : u.wait_back;
    // The fetch's synchronisation, before what its prefetch issues.
    const HostSync fetch_sync = is.synced && n == prefetch_from ? HostSync::device : HostSync::none;
    if (z_.per_tensor) {
      Work zero;
      zero.kind = StepOpKind::kernel;
      zero.part = "zero gather buffer";
      zero.layer = layer;
      zero.kernels.push_back(copy_kernel("zero gather buffer", p.total() * pb / 2.0));
      zero.after_prev = false;
      zero.blocks_next = false;
      zero.host_sync = fetch_sync;
      out.push_back(std::move(zero));
    } else if (fetch_sync != HostSync::none) {
      g.host_sync = fetch_sync;
    }
    out.push_back(std::move(g));
  }
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
        u.gather = between >= z_.max_reuse;
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
      const double live = z_.max_live - elements(uses[v - 1]);
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
  std::size_t bucket_end = 0;   // the position in `out` of its last unit's last work
  auto reduce = [&](const std::vector<int>& units, int layer, std::size_t end) {
    HeldParams p, t;
    for (int unit : units) {
      p.dense += units_[unit].dense;
      p.routed += units_[unit].routed;
      t.dense += tensors_[unit].dense;
      t.routed += tensors_[unit].routed;
    }
    Work w =
        collective(StepOpKind::zero_scatter, net::CollectiveOp::reduce_scatter, p, t, gb, layer);
    w.blocks_next = false;
    if (z_.own_stream) {
      w.stream = StreamKind::dp;
      // DeepSpeed 0.5 issues a bucket on the reduction stream without waiting for the compute
      // launched since its gradients (stage3.py, reduce_ipg_grads; later releases wait for the
      // compute stream): it waits for its last gradient alone.
      if (z_.host_syncs && end + 1 < out.size()) {
        w.after_prev = false;
        w.after_back = static_cast<int>(out.size() - end);
      }
      out.push_back(std::move(w));
    } else {
      deferred.push_back(std::move(w));
    }
  };
  const std::vector<Issue> issues = issue_points(uses);
  std::size_t next = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    Work w = std::move(c[i]);
    const bool starts = next < uses.size() && uses[next].first == i;
    if (starts) {
      const Issue& is = issues[next];
      issue_gathers(out, is, uses, w.layer, pb);
      if (is.synced && is.gathers.size() == (is.fetched ? 1u : 0u)) w.host_sync = HostSync::device;
      if (z_.copies && uses[next].gather)
        w.kernels.insert(w.kernels.begin(),
                         copy_kernel("fsdp copy-out", units_[uses[next].unit].total() * pb));
      if (!is.gathers.empty()) {
        for (Work& d : deferred) out.push_back(std::move(d));
        deferred.clear();
      }
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
    const std::size_t end = out.size() - 1;
    if (z_.bucket_params <= 0.0) {
      reduce({u.unit}, layer, end);
      continue;
    }
    if (!bucket.empty() && bucket_elements + elements(u) > z_.bucket_params) {
      reduce(bucket, bucket_layer, bucket_end);
      bucket.clear();
      bucket_elements = 0.0;
    }
    bucket.push_back(u.unit);
    bucket_elements += elements(u);
    bucket_layer = layer;
    bucket_end = end;
  }
  if (!bucket.empty()) reduce(bucket, bucket_layer, bucket_end);
  for (Work& d : deferred) out.push_back(std::move(d));
  c = std::move(out);
}

}  // namespace stepsim::workload
