#include "sim/workload/layer_chains.hpp"

#include <algorithm>

#include "sim/workload/collective_options.hpp"
#include "sim/workload/memory.hpp"

namespace stepsim::workload {

using net::CollectiveOp;
using spec::bytes_per_element;

LayerChains::LayerChains(const spec::ScenarioSpec& s, const ParallelPlan& p, const ModelCost& c)
    : spec_(s),
      plan_(p),
      cost_(c),
      pr_(s.training.precision),
      collective_(s, p),
      zero3_(s, p, c, collective_) {
  ctx_ = kernel_context(spec_.model, spec_.training, plan_.tokens_per_micro_batch, plan_.tp,
                        plan_.ep, spec_.parallel.sequence_parallel);
  cp_ = cp_layout(plan_);
}

namespace {

// The ops of an attention segment before its core, the core, and the ops after it.
struct AttentionSplit {
  std::vector<const OpCost*> before, after;
  const OpCost* core = nullptr;
};
AttentionSplit split_attention(const std::vector<const OpCost*>& ops) {
  AttentionSplit s;
  for (const OpCost* op : ops) {
    if (op->cls == OpClass::attention_core)
      s.core = op;
    else
      (s.core ? s.after : s.before).push_back(op);
  }
  return s;
}

}  // namespace

Work LayerChains::forward_work(const std::string& part, const std::vector<const OpCost*>& ops,
                               int li, bool recompute) const {
  Work w = kernel_work(part + (recompute ? " (recompute)" : ""), ops, Phase::forward, li);
  for (hw::Kernel& k : w.kernels) k.recompute = recompute;
  return w;
}

void LayerChains::attention_forward(Chain& c, const std::vector<const OpCost*>& ops, int li,
                                    bool recompute) const {
  const AttentionSplit s = split_attention(ops);
  if (cp_.cp <= 1 || !s.core) {
    c.push_back(forward_work("attn", ops, li, recompute));
    return;
  }
  c.push_back(forward_work("attn", s.before, li, recompute));
  append_cp_attention(c, *s.core, {false, recompute, li}, {ctx_, cp_, collective_});
  c.push_back(forward_work("attn out", s.after, li, recompute));
}

void LayerChains::attention_backward(Chain& c, const std::vector<const OpCost*>& ops, Phase pass,
                                     int li) const {
  const AttentionSplit s = split_attention(ops);
  if (cp_.cp <= 1 || !s.core) {
    c.push_back(kernel_work("attn", ops, pass, li));
    return;
  }
  c.push_back(kernel_work("attn out", s.after, pass, li));
  const spec::RecomputeSpec& r = spec_.training.recompute;
  // A recomputed core reruns its forward, exchanges included, ahead of its backward (under full
  // recomputation the whole layer's forward already has).
  if (r.mode != spec::RecomputeMode::full && is_recomputed(*s.core, r))
    append_cp_attention(c, *s.core, {false, true, li}, {ctx_, cp_, collective_});
  append_cp_attention(c, *s.core, {true, false, li}, {ctx_, cp_, collective_});
  c.push_back(kernel_work("attn", s.before, pass, li));
}

double LayerChains::payload(spec::Precision p) const {
  // The busiest receiver's bytes set the exchange (expert_load.hpp).
  return ctx_.tokens * ctx_.expert_load * a2a_bytes_per_token(spec_.model.hidden, p);
}

std::vector<std::pair<std::string, std::vector<const OpCost*>>> LayerChains::segments(
    const LayerCost& l) {
  std::vector<std::pair<std::string, std::vector<const OpCost*>>> s;
  if (l.index < 0) {
    s.push_back({l.index == kEmbedding ? "embed" : l.index == kMtpHead ? "mtp head" : "head", {}});
    for (const auto& op : l.ops) s.back().second.push_back(&op);
    return s;
  }
  // attn | experts or mlp | post (MoE: after the combine). The permutation into expert order
  // runs before the dispatch, the un-permutation and the residual add after the combine.
  s.push_back({"attn", {}});
  for (const auto& op : l.ops) {
    if (s.size() == 1 && (l.moe ? op.routed_expert && op.name != "permute" : op.name == "mlp_norm"))
      s.push_back({l.moe ? "experts" : "mlp", {}});
    if (s.size() == 2 && l.moe && op.name == "unpermute") s.push_back({"post", {}});
    s.back().second.push_back(&op);
  }
  return s;
}

Work LayerChains::kernel_work(const std::string& part, const std::vector<const OpCost*>& ops,
                              Phase pass, int layer) const {
  Work w;
  w.part = part;
  w.layer = layer;
  // Under full recomputation the whole layer's forward runs ahead of its backward instead
  // (forward_layer).
  const spec::RecomputeSpec& r = spec_.training.recompute;
  append_pass_kernels(ops, pass, layer >= 0 && r.mode != spec::RecomputeMode::full ? &r : nullptr,
                      ctx_, w.kernels);
  return w;
}

Work LayerChains::comm_work(StepOpKind kind, const std::string& part,
                            std::vector<CollectiveWork> collectives, int layer) {
  Work w;
  w.stream = StreamKind::comm;
  w.kind = kind;
  w.part = part;
  w.layer = layer;
  w.collectives = std::move(collectives);
  return w;
}

Work LayerChains::tp_work(int layer) const {
  const double s =
      plan_.tokens_per_micro_batch * spec_.model.hidden * bytes_per_element(pr_.activations);
  return comm_work(StepOpKind::tp_reduce, "tp all-reduce",
                   {collective_(CollectiveOp::all_reduce, s, GroupRole::tp)}, layer);
}

Work LayerChains::ep_work(StepOpKind kind, const std::string& part, spec::Precision p,
                          int layer) const {
  // The exchange towards the experts is a dispatch, the one back a combine.
  const CollectiveOp op =
      kind == StepOpKind::ep_dispatch ? CollectiveOp::dispatch : CollectiveOp::combine;
  return comm_work(kind, part, {collective_(op, payload(p), GroupRole::ep)}, layer);
}

Chain LayerChains::forward(int stage) const {
  return forward_layers(stage_layer_indices(plan_, stage));
}

Chain LayerChains::backward(int stage, bool with_weight) const {
  return backward_layers(stage_layer_indices(plan_, stage), with_weight);
}

Chain LayerChains::weight(int stage) const {
  return weight_layers(stage_layer_indices(plan_, stage));
}

Chain LayerChains::forward_layers(const std::vector<int>& layers) const {
  Chain c;
  for (int li : layers) forward_layer(c, li, false);
  if (spec_.parallel.zero == 3) zero3_.place(c, false, false);
  return c;
}

void LayerChains::forward_layer(Chain& c, int li, bool recompute) const {
  const LayerCost& l = layer_of(cost_, li);
  const auto segs = segments(l);
  const std::string again = recompute ? " (recompute)" : "";
  auto kernels = [&](std::size_t s, bool with_post = false) {
    std::vector<const OpCost*> ops = segs[s].second;
    if (with_post) ops.insert(ops.end(), segs[2].second.begin(), segs[2].second.end());
    c.push_back(forward_work(segs[s].first, ops, li, recompute));
  };
  if (li < 0) {
    kernels(0);
    return;
  }
  attention_forward(c, segs[0].second, li, recompute);
  if (plan_.tp > 1) c.push_back(tp_work(li));
  const bool post = segs.size() > 2;
  if (l.moe && plan_.ep > 1) {
    c.push_back(ep_work(StepOpKind::ep_dispatch, "dispatch" + again, pr_.dispatch, li));
    kernels(1);
    c.push_back(ep_work(StepOpKind::ep_combine, "combine" + again, pr_.combine, li));
    if (post) kernels(2);
  } else if (plan_.tp > 1) {
    kernels(1);
    c.push_back(tp_work(li));
    if (post) kernels(2);
  } else {
    kernels(1, post);  // nothing between the experts and what follows them: one run of kernels
  }
}

Chain LayerChains::backward_layers(std::vector<int> layers, bool with_weight) const {
  const Phase pass = with_weight ? Phase::backward_weight : Phase::backward;
  Chain c;
  std::reverse(layers.begin(), layers.end());
  for (std::size_t k = 0; k < layers.size(); ++k) {
    const int li = layers[k];
    const LayerCost& l = layer_of(cost_, li);
    const auto segs = segments(l);
    const bool full = spec_.training.recompute.mode == spec::RecomputeMode::full;
    // Full recomputation reruns the layer's forward, its all-reduces and the experts' exchange
    // included, ahead of its backward.
    if (full && li >= 0) forward_layer(c, li, true);
    if (li < 0) {
      c.push_back(kernel_work(segs[0].first, segs[0].second, pass, li));
    } else if (l.moe && plan_.ep > 1) {
      if (segs.size() > 2) c.push_back(kernel_work(segs[2].first, segs[2].second, pass, li));
      c.push_back(ep_work(StepOpKind::ep_dispatch, "combine grad", pr_.dispatch, li));
      c.push_back(kernel_work(segs[1].first, segs[1].second, pass, li));
      c.push_back(ep_work(StepOpKind::ep_combine, "dispatch grad", pr_.combine, li));
      attention_backward(c, segs[0].second, pass, li);
      if (plan_.tp > 1) c.push_back(tp_work(li));
    } else {
      // As in Megatron, the all-reduce of each block's input gradient follows its backward. An
      // MoE layer without expert parallelism: the un-permutation's backward, then the experts',
      // in one run of kernels.
      std::vector<const OpCost*> mlp = segs[1].second;
      if (segs.size() > 2) mlp.insert(mlp.end(), segs[2].second.begin(), segs[2].second.end());
      c.push_back(kernel_work(segs[1].first, mlp, pass, li));
      if (plan_.tp > 1) c.push_back(tp_work(li));
      attention_backward(c, segs[0].second, pass, li);
      if (plan_.tp > 1) c.push_back(tp_work(li));
    }
  }
  if (spec_.parallel.zero == 3) zero3_.place(c, true, with_weight);
  return c;
}

Chain LayerChains::weight_layers(std::vector<int> layers) const {
  Chain c;
  std::reverse(layers.begin(), layers.end());
  for (int li : layers) {
    std::vector<const OpCost*> ops;
    for (const auto& op : layer_of(cost_, li).ops) ops.push_back(&op);
    c.push_back(kernel_work("weight grad", ops, Phase::weight, li));
  }
  return c;
}

}  // namespace stepsim::workload
