#include "sim/workload/layer_chains.hpp"

#include <algorithm>

#include "sim/workload/memory.hpp"

namespace stepsim::workload {

using engine::Time;
using hw::bytes_per_element;
using net::CollectiveOp;

LayerChains::LayerChains(const ScenarioSpec& s, const ParallelPlan& p, const ModelCost& c,
                         CollectiveTimer& timer)
    : spec_(s),
      plan_(p),
      cost_(c),
      kernels_(s.cluster.device),
      pr_(s.training.precision),
      timer_(timer) {
  tokens_ = plan_.tokens_per_micro_batch / plan_.tp;
  const auto& dev = s.cluster.device;
  sm_share_ = static_cast<double>(dev.sms - spec_.parallel.comm_sms) / dev.sms;
}

Time LayerChains::kernels(const std::vector<const OpCost*>& ops, Pass pass, int layer_index,
                          double slowdown, double& flops) const {
  const KernelContext ctx{
      &kernels_,  tokens_,  plan_.tp, plan_.ep, spec_.parallel.sequence_parallel,
      pr_.params, sm_share_};
  double seconds = 0.0;
  for (const OpCost* op : ops) {
    const bool recomputed = layer_index >= 0 && is_recomputed(*op, spec_.training.recompute);
    const KernelTime k = kernel_time(*op, pass, recomputed, ctx);
    flops += k.flops;
    seconds += k.seconds;
  }
  return Time::from_seconds(seconds * slowdown);
}

Time LayerChains::comm(CollectiveOp op, double bytes, const std::vector<int>& group) {
  return timer_.time(op, bytes, group);
}
void LayerChains::take_link(double& ib, double& nvlink, int& load) {
  const net::LinkBytes l = timer_.take_link();
  ib = l.ib;
  nvlink = l.nvlink;
  load = timer_.take_load();
}

double LayerChains::payload(hw::Precision p) const {
  const double h = spec_.model.hidden;
  return tokens_ * a2a_bytes_per_token(h, p);
}

std::vector<std::pair<std::string, std::vector<const OpCost*>>> LayerChains::segments(
    const LayerCost& l) {
  std::vector<std::pair<std::string, std::vector<const OpCost*>>> s;
  if (l.index < 0) {
    s.push_back({l.index == -1 ? "embed" : "head", {}});
    for (const auto& op : l.ops) s.back().second.push_back(&op);
    return s;
  }
  s.push_back({"attn", {}});
  bool second = false;
  for (const auto& op : l.ops) {
    if (!second && (op.name == "mlp_norm" ? !l.moe : op.routed_expert)) {
      s.push_back({l.moe ? "experts" : "mlp", {}});
      second = true;
    }
    s.back().second.push_back(&op);
  }
  return s;
}

Item LayerChains::kernel_item(const std::string& part, const std::vector<const OpCost*>& ops,
                              Pass pass, int layer, double slowdown) const {
  Item it;
  it.part = part;
  it.layer = layer;
  it.duration = kernels(ops, pass, layer, slowdown, it.flops);
  return it;
}

Item LayerChains::comm_item(StepOpKind kind, const std::string& part, Time t, double bytes,
                            int layer) {
  Item it;
  take_link(it.ib_bytes, it.nvlink_bytes, it.load);
  it.stream = StreamKind::comm;
  it.kind = kind;
  it.part = part;
  it.duration = t;
  it.bytes = bytes;
  it.layer = layer;
  return it;
}

Item LayerChains::tp_item(int layer) {
  const double s =
      plan_.tokens_per_micro_batch * spec_.model.hidden * bytes_per_element(pr_.activations);
  return comm_item(StepOpKind::tp_reduce, "tp all-reduce",
                   comm(CollectiveOp::all_reduce, s, timer_.tp_group()), s, layer);
}

// ZeRO-3 traffic of one layer: non-expert parameters over dp, expert parameters over edp.
Item LayerChains::zero3_item(StepOpKind kind, CollectiveOp op, const std::string& part,
                             const LayerCost& l, double bytes_per) {
  const double dense = (l.params() - l.routed_params()) / plan_.tp * bytes_per;
  const double routed = l.routed_params() / plan_.ep * bytes_per;
  const Time t = comm(op, dense, timer_.dp_group()) + comm(op, routed, timer_.edp_group());
  Item it = comm_item(kind, part, t, dense + routed, l.index);
  it.couples = true;
  return it;
}

// The gather runs ahead of the layer (on the comm stream) once the layer zero3_prefetch + 1
// before it has finished; the layer's first kernel waits for it.
void LayerChains::zero3_gather(Chain& c, const LayerCost& l) {
  if (spec_.parallel.zero != 3) return;
  Item it = zero3_item(StepOpKind::zero_gather, CollectiveOp::all_gather, "gather params", l,
                       bytes_per_element(pr_.params));
  it.after_prev = false;
  it.blocks_next = false;
  it.feeds_next = true;
  it.wait_layers_back = spec_.parallel.zero3_prefetch + 1;
  c.push_back(it);
}

void LayerChains::mark_layer_ends(Chain& c) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].stream != StreamKind::compute) continue;
    bool last = true;
    for (std::size_t j = i + 1; j < c.size() && c[j].layer == c[i].layer; ++j)
      last &= c[j].stream != StreamKind::compute;
    c[i].ends_layer = last;
  }
}

Chain LayerChains::forward(int stage, double slowdown) {
  Chain c;
  for (int li : stage_layer_indices(plan_, stage)) {
    const LayerCost& l = layer_of(cost_, li);
    zero3_gather(c, l);
    const auto segs = segments(l);
    c.push_back(kernel_item(segs[0].first, segs[0].second, Pass::forward, li, slowdown));
    if (li < 0) continue;
    if (plan_.tp > 1) c.push_back(tp_item(li));
    if (l.moe && plan_.ep > 1) {
      const double sd = payload(pr_.dispatch), sc = payload(pr_.combine);
      c.push_back(comm_item(StepOpKind::ep_dispatch, "dispatch",
                            comm(CollectiveOp::dispatch, sd, timer_.ep_group()), sd, li));
      c.push_back(kernel_item(segs[1].first, segs[1].second, Pass::forward, li, slowdown));
      c.push_back(comm_item(StepOpKind::ep_combine, "combine",
                            comm(CollectiveOp::combine, sc, timer_.ep_group()), sc, li));
    } else {
      c.push_back(kernel_item(segs[1].first, segs[1].second, Pass::forward, li, slowdown));
      if (plan_.tp > 1) c.push_back(tp_item(li));
    }
  }
  mark_layer_ends(c);
  return c;
}

Chain LayerChains::backward(int stage, double slowdown, bool with_weight) {
  const Pass pass = with_weight ? Pass::backward_weight : Pass::backward;
  Chain c;
  auto layers = stage_layer_indices(plan_, stage);
  std::reverse(layers.begin(), layers.end());
  if (!layers.empty()) zero3_gather(c, layer_of(cost_, layers.front()));
  for (std::size_t k = 0; k < layers.size(); ++k) {
    const int li = layers[k];
    const LayerCost& l = layer_of(cost_, li);
    const auto segs = segments(l);
    const bool full = spec_.training.recompute.mode == RecomputeMode::full;
    if (li < 0) {
      c.push_back(kernel_item(segs[0].first, segs[0].second, pass, li, slowdown));
    } else if (l.moe && plan_.ep > 1) {
      const double sd = payload(pr_.dispatch), sc = payload(pr_.combine);
      if (full) {
        // The recomputed forward repeats its all-reduce and the experts' exchange.
        if (plan_.tp > 1) c.push_back(tp_item(li));
        c.push_back(comm_item(StepOpKind::ep_dispatch, "dispatch (recompute)",
                              comm(CollectiveOp::dispatch, sd, timer_.ep_group()), sd, li));
        c.push_back(comm_item(StepOpKind::ep_combine, "combine (recompute)",
                              comm(CollectiveOp::combine, sc, timer_.ep_group()), sc, li));
      }
      c.push_back(comm_item(StepOpKind::ep_dispatch, "combine grad",
                            comm(CollectiveOp::dispatch, sd, timer_.ep_group()), sd, li));
      c.push_back(kernel_item(segs[1].first, segs[1].second, pass, li, slowdown));
      c.push_back(comm_item(StepOpKind::ep_combine, "dispatch grad",
                            comm(CollectiveOp::combine, sc, timer_.ep_group()), sc, li));
      c.push_back(kernel_item(segs[0].first, segs[0].second, pass, li, slowdown));
      if (plan_.tp > 1) c.push_back(tp_item(li));
    } else {
      // The recomputed forward repeats the attention's and the MLP's all-reduces; then, as in
      // Megatron, the all-reduce of each block's input gradient follows its backward.
      if (full && plan_.tp > 1) {
        c.push_back(tp_item(li));
        c.push_back(tp_item(li));
      }
      c.push_back(kernel_item(segs[1].first, segs[1].second, pass, li, slowdown));
      if (plan_.tp > 1) c.push_back(tp_item(li));
      c.push_back(kernel_item(segs[0].first, segs[0].second, pass, li, slowdown));
      if (plan_.tp > 1) c.push_back(tp_item(li));
    }
    // ZeRO-3: the next layer's gather is issued before this layer's gradient reduce-scatter, so
    // on the (in-order) communication stream it can run ahead while this layer computes.
    if (k + 1 < layers.size()) zero3_gather(c, layer_of(cost_, layers[k + 1]));
    if (spec_.parallel.zero == 3 && with_weight) {
      Item it = zero3_item(StepOpKind::zero_scatter, CollectiveOp::reduce_scatter,
                           "reduce-scatter grads", l, bytes_per_element(pr_.grads));
      it.blocks_next = false;
      c.push_back(it);
    }
  }
  mark_layer_ends(c);
  return c;
}

Chain LayerChains::weight(int stage, double slowdown) {
  Chain c;
  auto layers = stage_layer_indices(plan_, stage);
  std::reverse(layers.begin(), layers.end());
  for (int li : layers) {
    std::vector<const OpCost*> ops;
    for (const auto& op : layer_of(cost_, li).ops) ops.push_back(&op);
    c.push_back(kernel_item("weight grad", ops, Pass::weight, li, slowdown));
  }
  mark_layer_ends(c);
  return c;
}

}  // namespace stepsim::workload
