#include "sim/workload/model_cost.hpp"

#include <algorithm>
#include <set>

namespace stepsim::workload {

using spec::Precision;

namespace {

using spec::bytes_per_element;

// A linear layer N×K keeping `saved` bytes per token for backward.
struct Shape {
  double n, k, saved;
};
// Runs of it per token and copies a GPU owns (a routed expert's: top_k and the experts).
struct Copies {
  double run = 1.0, owned = 1.0;
  bool routed = false;
};
// An elementwise op reading `in` and writing `out` elements per token (in backward, `bwd`
// elements; -1: as many), keeping `saved` bytes, owning `params`.
struct Elements {
  double in, out, saved;
  double params = 0.0, bwd = -1.0;
};

struct Builder {
  const spec::ModelSpec& m;
  const spec::TrainingSpec& t;
  double act;  // bytes per activation element
  double gin;  // bytes per GEMM-input element

  OpCost linear(std::string name, std::string group, Shape shape, Precision p,
                Copies c = {}) const {
    const double n = shape.n, k = shape.k, copies = c.run;
    OpCost op;
    op.name = std::move(name);
    op.group = std::move(group);
    op.cls = OpClass::gemm;
    op.precision = p;
    op.routed_expert = c.routed;
    op.routed_copies = c.routed;
    op.copies = copies;
    op.n = n;
    op.k = k;
    op.fwd_flops = 2.0 * n * k * copies;
    op.b_flops = op.fwd_flops;
    op.w_flops = op.fwd_flops;
    const double bias = m.bias ? n : 0.0;
    op.params = (n * k + bias) * c.owned;
    op.active_params = (n * k + bias) * copies;
    op.io_bytes = copies * (k * bytes_per_element(p) + n * act);
    op.saved_bytes = shape.saved;
    return op;
  }

  OpCost elementwise(std::string name, std::string group, Elements e) const {
    const double elems_in = e.in, elems_out = e.out, params = e.params, bwd_elems = e.bwd;
    OpCost op;
    op.name = std::move(name);
    op.group = std::move(group);
    op.cls = OpClass::elementwise;
    op.precision = t.precision.activations;
    op.params = params;
    op.active_params = params;
    op.io_bytes = (elems_in + elems_out) * act;
    op.bwd_io_bytes = (bwd_elems >= 0.0 ? bwd_elems : elems_in + elems_out) * act;
    op.saved_bytes = e.saved;
    return op;
  }

  std::string norm_name() const {
    return m.norm == spec::NormKind::rmsnorm ? "rmsnorm" : "layernorm";
  }
  double norm_params(double dim) const {
    return m.norm == spec::NormKind::rmsnorm ? dim : 2.0 * dim;
  }

  OpCost norm(std::string name, double dim) const {
    // Output feeds a GEMM, kept in the GEMM precision.
    OpCost op = elementwise(std::move(name), norm_name(),
                            {dim, dim, dim * gin, norm_params(dim), 3.0 * dim});
    op.tp_replicated = true;
    return op;
  }

  OpCost attention_core(double q_heads, double kv_heads, double dqk, double dv) const {
    OpCost op;
    op.name = "attn_core";
    op.group = "attn_core";
    op.cls = OpClass::attention_core;
    op.precision = t.precision.attention;
    const double keys = t.causal ? t.seq_len / 2.0 : t.seq_len;
    op.fwd_flops = 2.0 * keys * q_heads * (dqk + dv);
    op.b_flops = 2.0 * op.fwd_flops;
    op.io_bytes = (q_heads * dqk + kv_heads * (dqk + dv) + q_heads * dv) * act;
    // Backward reads q, k, v, o, do and the log-sum-exp, writes dq, dk, dv.
    op.bwd_io_bytes =
        (2.0 * q_heads * dqk + 2.0 * kv_heads * (dqk + dv) + 2.0 * q_heads * dv) * act +
        q_heads * 4.0;
    op.head_dim = (dqk + dv) / 2.0;
    op.heads = q_heads, op.qk_dim = dqk, op.v_dim = dv;
    op.kv_heads = kv_heads, op.act_bytes = act;
    op.saved_bytes = q_heads * dv * act + q_heads * 4.0;  // output + fp32 log-sum-exp
    if (!spec::fused(t.attention_kernel)) {
      // Unfused, the probabilities of all s keys per query and head are kept (the masked half
      // too), with the dropout mask (one byte each) and its output (Korthikanti et al. 2022,
      // §4.1: 5as²b bytes per layer with dropout); no log-sum-exp.
      const double e = bytes_per_element(op.precision);
      op.saved_bytes = q_heads * dv * act +
                       q_heads * t.seq_len * (e + (t.attention_dropout > 0.0 ? 1.0 + e : 0.0));
    }
    return op;
  }

  void attention(LayerCost& l) const {
    const auto& a = m.attention;
    const double h = m.hidden;
    const Precision g = t.precision.gemm;
    l.ops.push_back(norm("attn_norm", h));
    if (a.kind == spec::AttentionKind::mla) {
      const double qk = a.qk_dim(), heads = a.heads;
      if (a.q_lora_rank > 0) {
        l.ops.push_back(
            linear("q_down", "q_down", {double(a.q_lora_rank), h, a.q_lora_rank * act}, g));
        l.ops.push_back(norm("q_norm", a.q_lora_rank));
        l.ops.push_back(linear("q_up", "mla_up_proj",
                               {heads * qk, double(a.q_lora_rank), heads * qk * act}, g));
      } else {
        l.ops.push_back(linear("q_proj", "q_proj", {heads * qk, h, heads * qk * act}, g));
      }
      const double kv_down_n = a.kv_lora_rank + a.qk_rope_head_dim;
      l.ops.push_back(linear("kv_down", "kv_down", {kv_down_n, h, kv_down_n * act}, g));
      l.ops.push_back(norm("kv_norm", a.kv_lora_rank));
      const double kv_up_n = heads * (a.qk_nope_head_dim + a.v_head_dim);
      l.ops.push_back(
          linear("kv_up", "mla_up_proj", {kv_up_n, double(a.kv_lora_rank), kv_up_n * act}, g));
      l.ops.push_back(rope(heads * a.qk_rope_head_dim + a.qk_rope_head_dim));
      l.ops.push_back(attention_core(heads, heads, qk, a.v_head_dim));
      l.ops.push_back(linear("out_proj", "out_proj", {h, heads * a.v_head_dim, h * act}, g));
    } else {
      const double hd = a.head_dim, heads = a.heads, kvh = a.kv_heads;
      const double qkv_n = (heads + 2.0 * kvh) * hd;
      l.ops.push_back(linear("qkv_proj", "qkv_proj", {qkv_n, h, qkv_n * act}, g));
      if (m.learned_positions == 0) l.ops.push_back(rope((heads + kvh) * hd));
      l.ops.push_back(attention_core(heads, kvh, hd, hd));
      l.ops.push_back(linear("out_proj", "out_proj", {h, heads * hd, h * act}, g));
    }
    l.ops.push_back(residual("attn_residual"));
  }

  // Rotary embedding of `elems` values of q and k per token (tensor-parallel shards).
  OpCost rope(double elems) const { return elementwise("rope", "rope", {elems, elems, 0.0}); }

  // The residual stream's add: whole on every tensor-parallel rank, like the norms.
  OpCost residual(std::string name) const {
    OpCost op = elementwise(std::move(name), "residual", {2.0 * m.hidden, double(m.hidden), 0.0});
    op.tp_replicated = true;
    return op;
  }

  // A gated (SwiGLU) or plain (GELU) MLP of width `ffn`, `copies` per token.
  void mlp(LayerCost& l, const std::string& prefix, double ffn, double copies, double owned,
           bool routed) const {
    const double h = m.hidden;
    const Precision g = t.precision.gemm;
    const bool gated = m.mlp.kind == spec::MlpKind::swiglu;
    const double up_n = gated ? 2.0 * ffn : ffn;
    // The up projection keeps its input (dispatched copies for routed experts) and its output.
    const double in_bytes = routed ? copies * h * bytes_per_element(t.precision.dispatch) : 0.0;
    const double act_in =
        bytes_per_element(t.precision.mlp_act_input.value_or(t.precision.activations));
    OpCost up = linear(prefix + "_up", prefix + "_up", {up_n, h, in_bytes + copies * up_n * act_in},
                       g, {copies, owned, routed});
    up.input_quantized = routed && t.precision.dispatch == Precision::fp8 && g == Precision::fp8;
    l.ops.push_back(up);
    OpCost actf = elementwise(prefix + "_act", gated ? "swiglu" : "gelu",
                              {copies * up_n, copies * ffn, copies * ffn * gin, 0.0,
                               copies * (gated ? 5.0 * ffn : 3.0 * ffn)});
    actf.routed_copies = routed;
    l.ops.push_back(actf);
    OpCost down =
        linear(prefix + "_down", prefix + "_down", {h, ffn, 0.0}, g, {copies, owned, routed});
    down.grad_quantized = routed && t.precision.dispatch == Precision::fp8 && g == Precision::fp8;
    l.ops.push_back(down);
  }

  // Token copies reordered into expert order (permute) or back (unpermute): top_k hidden states
  // read and written per token, in the forward payload's precision, the gradient's in backward.
  OpCost permutation(std::string name, Precision fwd, Precision bwd) const {
    OpCost op = elementwise(name, name, {0.0, 0.0, 0.0});
    op.routed_expert = true;
    const double copies = m.moe.top_k;
    op.io_bytes = 2.0 * copies * a2a_bytes_per_token(m.hidden, fwd);
    op.bwd_io_bytes = 2.0 * copies * a2a_bytes_per_token(m.hidden, bwd);
    return op;
  }

  // Layer `index`; an MTP block is an MoE block wherever the model has experts.
  LayerCost layer(int index, bool mtp = false) const {
    LayerCost l;
    l.index = index;
    l.moe = mtp ? m.moe.enabled : m.is_moe_layer(index);
    l.input_bytes = m.hidden * act;
    attention(l);
    l.ops.push_back(norm("mlp_norm", m.hidden));
    if (l.moe) {
      const auto& e = m.moe;
      OpCost router =
          linear("router", "router", {double(e.experts), double(m.hidden), e.experts * 4.0},
                 t.precision.router);
      router.params = router.active_params = static_cast<double>(e.experts) * m.hidden;
      l.ops.push_back(router);
      const double k = e.top_k, experts = e.experts;
      // Scores in fp32; top-k indices (int32) and weights (fp32).
      OpCost topk = elementwise("router_topk", "router", {0.0, 0.0, 0.0});
      topk.io_bytes = experts * 4.0 + k * 8.0;
      topk.bwd_io_bytes = 2.0 * experts * 4.0 + k * 4.0;
      l.ops.push_back(topk);
      l.ops.push_back(permutation("permute", t.precision.dispatch, t.precision.combine));
      mlp(l, "expert", e.intermediate, e.top_k, e.experts, true);
      if (e.shared_experts > 0)
        mlp(l, "shared", double(e.intermediate) * e.shared_experts, 1, 1, false);
      l.ops.push_back(permutation("unpermute", t.precision.combine, t.precision.dispatch));
    } else {
      mlp(l, "mlp", m.mlp.intermediate, 1, 1, false);
    }
    l.ops.push_back(residual("mlp_residual"));
    return l;
  }

  LayerCost embedding() const {
    LayerCost l;
    l.index = kEmbedding;
    OpCost op;
    op.name = "embedding";
    op.group = "embedding";
    op.cls = OpClass::embedding;
    op.precision = t.precision.head;
    op.params = double(m.vocab) * m.hidden + double(m.learned_positions) * m.hidden;
    // The table counts as activated (as in DeepSeek's 37 B); a tied table is counted once, at the
    // head.
    op.active_params = op.params - (m.tie_embeddings ? double(m.vocab) * m.hidden : 0.0);
    op.io_bytes = 2.0 * m.hidden * act;
    // Backward: read the gradient, add it into the table's rows (read and write, grads precision).
    op.bwd_io_bytes = m.hidden * act + 2.0 * m.hidden * bytes_per_element(t.precision.grads);
    l.ops.push_back(op);
    return l;
  }

  // Multi-token prediction block `d`: the two norms and the projection, then a transformer block.
  LayerCost mtp_block(int index) const {
    LayerCost l = layer(index, true);
    l.mtp = true;
    std::vector<OpCost> pre;
    // The embedding of token i+D, from the main model's table (shared: no parameters here).
    OpCost embed = embedding().ops.front();
    embed.name = embed.group = "mtp_embed";
    embed.params = embed.active_params = 0.0;
    pre.push_back(embed);
    pre.push_back(norm("mtp_hnorm", m.hidden));
    pre.push_back(norm("mtp_enorm", m.hidden));
    pre.push_back(linear("mtp_proj", "mtp_proj",
                         {double(m.hidden), 2.0 * m.hidden, 2.0 * m.hidden * gin},
                         t.precision.gemm));
    l.ops.insert(l.ops.begin(), pre.begin(), pre.end());
    l.input_bytes = 2.0 * m.hidden * act;
    return l;
  }

  // The MTP modules' predictions through the shared head, one per module.
  LayerCost mtp_head() const {
    LayerCost l = head();
    l.index = kMtpHead;
    l.mtp = true;
    for (auto& op : l.ops) {
      op.name = "mtp_" + op.name;
      op.params = 0.0;  // the main model's final norm and head, shared
      // One pass per module: the head's GEMM over D times the rows.
      for (double* v : {&op.copies, &op.fwd_flops, &op.b_flops, &op.w_flops, &op.active_params,
                        &op.io_bytes, &op.bwd_io_bytes, &op.saved_bytes})
        *v *= m.mtp_layers;
    }
    l.input_bytes *= m.mtp_layers;
    return l;
  }

  LayerCost head() const {
    LayerCost l;
    l.index = kHead;
    l.input_bytes = m.hidden * act;
    l.ops.push_back(norm("final_norm", m.hidden));
    OpCost out = linear("head", "head", {double(m.vocab), double(m.hidden), 0.0}, t.precision.head);
    if (m.tie_embeddings) out.params = 0.0;  // shares the embedding table
    out.active_params = double(m.vocab) * m.hidden;
    l.ops.push_back(out);
    // Fused softmax cross-entropy over the head's logits (in the activation precision, reduced in
    // fp32 registers): forward reads them; backward reads them again and writes their gradient.
    OpCost loss = elementwise("loss", "loss", {0.0, 0.0, 0.0});
    loss.io_bytes = m.vocab * act;
    loss.bwd_io_bytes = 2.0 * m.vocab * act;
    l.ops.push_back(loss);
    return l;
  }
};

template <class F>
double sum(const std::vector<OpCost>& ops, F f) {
  double s = 0.0;
  for (const auto& op : ops) s += f(op);
  return s;
}

}  // namespace

void LayerCost::finish() {
  params_ = sum(ops, [](const OpCost& o) { return o.params; });
  routed_params_ = sum(ops, [](const OpCost& o) { return o.routed_expert ? o.params : 0.0; });
}
double LayerCost::active_params() const {
  return sum(ops, [](const OpCost& o) { return o.active_params; });
}
double LayerCost::fwd_flops() const {
  return sum(ops, [](const OpCost& o) { return o.fwd_flops; });
}
double LayerCost::train_flops() const {
  return sum(ops, [](const OpCost& o) { return o.fwd_flops + o.b_flops + o.w_flops; });
}

ModelCost::ModelCost(const spec::ModelSpec& model, const spec::TrainingSpec& training) {
  const Builder b{model, training, bytes_per_element(training.precision.activations),
                  bytes_per_element(training.precision.gemm)};
  layers_.reserve(model.layers + model.mtp_layers);
  for (int i = 0; i < model.layers; ++i) layers_.push_back(b.layer(i));
  for (int i = 0; i < model.mtp_layers; ++i) layers_.push_back(b.mtp_block(model.layers + i));
  embedding_ = b.embedding();
  head_ = b.head();
  if (model.mtp_layers > 0) mtp_head_ = b.mtp_head();
  mtp_head_.index = kMtpHead;
  for (LayerCost* l : {&embedding_, &head_, &mtp_head_}) l->finish();
  policy_ = training.recompute;
  for (auto& l : layers_) {
    l.finish();
    recomputed_.push_back(recompute_uncached(l, policy_));
  }
}

double ModelCost::params_main() const {
  double s = embedding_.params() + head_.params();
  for (const auto& l : layers_)
    if (!l.mtp) s += l.params();
  return s;
}

double ModelCost::params_mtp() const {
  double s = 0.0;
  for (const auto& l : layers_)
    if (l.mtp) s += l.params();
  return s;
}

double ModelCost::params_total() const {
  return params_main() + params_mtp();
}

double ModelCost::params_active() const {
  double s = embedding_.active_params() + head_.active_params();
  for (const auto& l : layers_)
    if (!l.mtp) s += l.active_params();
  return s;
}

double ModelCost::flops_per_token() const {
  double s = embedding_.train_flops() + head_.train_flops() + mtp_head_.train_flops();
  for (const auto& l : layers_) s += l.train_flops();
  return s;
}

bool is_recomputed(const OpCost& op, const spec::RecomputeSpec& spec) {
  switch (spec.mode) {
    case spec::RecomputeMode::none:
      return false;
    case spec::RecomputeMode::full:
      return true;
    case spec::RecomputeMode::selective:
      return op.group == "attn_core";
    case spec::RecomputeMode::ops:
      return std::find(spec.ops.begin(), spec.ops.end(), op.name) != spec.ops.end() ||
             std::find(spec.ops.begin(), spec.ops.end(), op.group) != spec.ops.end();
  }
  return false;
}

double a2a_bytes_per_token(double hidden, Precision p) {
  return hidden * bytes_per_element(p) + (p == Precision::fp8 ? hidden / 128.0 * 4.0 : 0.0);
}

double op_local_params(const OpCost& op, int tp, int ep) {
  if (op.cls == OpClass::embedding) return 0.0;
  return op.routed_expert ? op.params / ep : op.params / tp;
}

ModelCost::Recomputed ModelCost::recompute(const LayerCost& layer,
                                           const spec::RecomputeSpec& spec) const {
  const auto i = static_cast<std::size_t>(layer.index);
  if (layer.index >= 0 && i < layers_.size() && &layers_[i] == &layer &&
      spec.mode == policy_.mode && spec.ops == policy_.ops)
    return recomputed_[i];
  return recompute_uncached(layer, spec);
}

ModelCost::Recomputed ModelCost::recompute_uncached(const LayerCost& layer,
                                                    const spec::RecomputeSpec& spec) {
  Recomputed r;
  r.saved_bytes = layer.input_bytes;
  for (const auto& op : layer.ops) {
    if (is_recomputed(op, spec))
      r.extra_flops += op.fwd_flops;
    else
      r.saved_bytes += op.saved_bytes;
  }
  return r;
}

ModelFigures ModelCost::figures() const {
  return {params_main(), params_mtp(), params_active(), flops_per_token()};
}

std::vector<std::string> ModelCost::recompute_names() const {
  std::set<std::string> names;
  for (const auto& l : layers_)
    for (const auto& op : l.ops) {
      names.insert(op.name);
      names.insert(op.group);
    }
  return {names.begin(), names.end()};
}

}  // namespace stepsim::workload
