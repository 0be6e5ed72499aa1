#include "sim/workload/op_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "sim/workload/expert_load.hpp"

namespace stepsim::workload {

using spec::Precision;

namespace {

using hw::Kernel;
using spec::bytes_per_element;

constexpr double kScale = 4.0 / 128.0;  // fp32 scale per 1×128 tile, bytes per element

double load_of(const OpCost& op, const KernelContext& ctx) {
  return op.routed_copies ? ctx.expert_load : 1.0;
}

// The access pattern of a memory-bound kernel in `role` (a norm's: reduction, set by the caller).
spec::MemoryPattern pattern_of(hw::KernelRole role) {
  switch (role) {
    case hw::KernelRole::quantize_input:
      return spec::MemoryPattern::cast;
    case hw::KernelRole::quantize_grad:
    case hw::KernelRole::cast_transpose:
      return spec::MemoryPattern::cast_transpose;
    case hw::KernelRole::transpose_input:
    case hw::KernelRole::transpose_grad:
      return spec::MemoryPattern::transpose;
    case hw::KernelRole::attn_softmax:
    case hw::KernelRole::attn_softmax_bwd:
      return spec::MemoryPattern::reduction;
    default:
      return spec::MemoryPattern::copy;
  }
}

Kernel memory_kernel(const std::string& op, hw::KernelRole role, double bytes) {
  Kernel k;
  k.set_op(op);
  k.role = role;
  k.cls = &hw::kMemoryClass;
  k.hbm_bytes = bytes;
  k.pattern = pattern_of(role);
  return k;
}

// M×N×K, `groups` of them (a grouped GEMM's).
struct GemmShape {
  double m, n, k;
  int groups = 1;
};

Kernel gemm_kernel(const std::string& op, hw::KernelRole role, Precision p, GemmShape s,
                   double bytes) {
  const double m = s.m, n = s.n, kk = s.k;
  const int groups = s.groups;
  Kernel k;
  k.set_op(op);
  k.role = role;
  k.cls = &hw::kGemmClass;
  k.precision = p;
  k.m = m, k.n = n, k.k = kk, k.groups = groups;
  k.flops = 2.0 * groups * m * n * kk;
  k.hbm_bytes = bytes;
  return k;
}

void linear(const OpCost& op, Phase pass, const KernelContext& ctx, std::vector<Kernel>& out) {
  const spec::PrecisionPolicy& pr = ctx.precision;
  const Precision p = op.precision;
  const bool fp8 = p == Precision::fp8;
  const double act = bytes_per_element(pr.activations);
  const double in = bytes_per_element(p) + (fp8 ? kScale : 0.0);
  const double w = fp8 ? 1.0 : bytes_per_element(pr.params);
  const double grad = bytes_per_element(pr.grads);
  const int groups = op.routed_expert ? std::max(1, ctx.local_experts) : 1;
  // Every tensor-parallel rank multiplies all the micro-batch's tokens by its shard of W; routed
  // experts are whole on their GPU (no expert tensor parallelism) and see the token copies the
  // dispatch brings, the GPU's share of the micro-batch's.
  const int split = op.routed_expert ? 1 : ctx.tp;
  const double load = load_of(op, ctx);
  const double rows = ctx.tokens * split * op.copies * load;  // M, all groups
  const double m = rows / groups;
  const double n = op.n >= op.k ? op.n / split : op.n;
  const double k = op.n >= op.k ? op.k : op.k / split;
  const double weights = groups * n * k;
  if (pass == Phase::forward) {
    if (fp8 && !op.input_quantized)
      out.push_back(memory_kernel(op.name, hw::KernelRole::quantize_input, rows * k * (act + in)));
    out.push_back(gemm_kernel(op.name, hw::KernelRole::fprop, p, {m, n, k, groups},
                              rows * k * in + weights * w + rows * n * act));
  }
  if (pass == Phase::backward || pass == Phase::backward_weight) {
    // An output gradient that arrives in FP8 (the combine's gradient, sent in the dispatch's
    // precision) needs only its transposed copy for wgrad.
    if (fp8 && op.grad_quantized)
      out.push_back(memory_kernel(op.name, hw::KernelRole::transpose_grad, rows * n * 2.0 * in));
    else if (fp8)
      out.push_back(
          memory_kernel(op.name, hw::KernelRole::quantize_grad, rows * n * (act + 2.0 * in)));
    out.push_back(gemm_kernel(op.name, hw::KernelRole::dgrad, p, {m, k, n, groups},
                              rows * n * in + weights * w + rows * k * act));
  }
  if ((pass == Phase::weight || pass == Phase::backward_weight) && op.w_flops > 0.0) {
    if (fp8)
      out.push_back(memory_kernel(op.name, hw::KernelRole::transpose_input, rows * k * 2.0 * in));
    out.push_back(gemm_kernel(op.name, hw::KernelRole::wgrad, p, {n, k, m, groups},
                              rows * n * in + rows * k * in + weights * 2.0 * grad));
  }
}

// An unfused attention core over G = b·a (sequence, head) pairs on this GPU, s queries and keys
// each: the s x s scores go through HBM between kernels, in the attention precision (e bytes),
// the dropout mask one byte each. The batched GEMMs compute all s² scores, the masked half too.
void unfused_attention(const OpCost& op, bool fwd, double tokens, const KernelContext& ctx,
                       std::vector<Kernel>& out) {
  using hw::KernelRole;
  const double s = ctx.seq, dqk = op.qk_dim, dv = op.v_dim;
  const int g = std::max(1, static_cast<int>(std::lround(tokens * op.heads / s)));
  const double e = bytes_per_element(op.precision), s2 = g * s * s;
  const double q = g * s * dqk * e, v = g * s * dv * e;  // one Q (or K), one V (or O) tensor
  const bool eager = ctx.attention_kernel == spec::AttentionKernel::eager;
  const bool dropout = ctx.attention_dropout > 0.0;
  auto gemm = [&](KernelRole role, double m, double n, double k, double bytes) {
    out.push_back(gemm_kernel(op.name, role, op.precision, {m, n, k, g}, bytes));
  };
  auto pass = [&](KernelRole role, double bytes) {
    out.push_back(memory_kernel(op.name, role, bytes));
  };
  if (fwd) {
    gemm(KernelRole::attn_qk, s, s, dqk, 2.0 * q + s2 * e);
    if (eager) {
      pass(KernelRole::attn_scale, 2.0 * s2 * e);
      pass(KernelRole::attn_mask, 2.0 * s2 * e);
    }
    pass(KernelRole::attn_softmax, 2.0 * s2 * e);
    if (dropout) pass(KernelRole::attn_dropout, 2.0 * s2 * e + s2);
    gemm(KernelRole::attn_pv, s, dv, s, s2 * e + 2.0 * v);
    return;
  }
  gemm(KernelRole::attn_dp, s, s, dv, 2.0 * v + s2 * e);  // dP = dO·Vᵀ
  gemm(KernelRole::attn_dv, s, dv, s, s2 * e + 2.0 * v);  // dV = Pᵀ·dO
  if (dropout) pass(KernelRole::attn_dropout_bwd, 2.0 * s2 * e + s2);
  pass(KernelRole::attn_softmax_bwd, 3.0 * s2 * e);  // reads dP and the probabilities
  if (eager) {
    pass(KernelRole::attn_mask_bwd, 2.0 * s2 * e);
    pass(KernelRole::attn_scale_bwd, 2.0 * s2 * e);
  }
  gemm(KernelRole::attn_dq, s, dqk, s, s2 * e + 2.0 * q);  // dQ = dS·K
  gemm(KernelRole::attn_dk, s, dqk, s, s2 * e + 2.0 * q);  // dK = dSᵀ·Q
}

void append_kernels(const OpCost& op, Phase pass, const KernelContext& ctx,
                    std::vector<Kernel>& out) {
  if (op.cls == OpClass::gemm) {
    if (pass == Phase::weight && op.w_flops <= 0.0) return;
    linear(op, pass, ctx, out);
    return;
  }
  if (pass == Phase::weight) return;
  const bool fwd = pass == Phase::forward;
  const double t = ctx.tokens * (tp_replicated(op, ctx.tp, ctx.sequence_parallel) ? ctx.tp : 1) *
                   load_of(op, ctx);
  const double params =
      op_local_params(op, ctx.tp, ctx.ep) * bytes_per_element(ctx.precision.params);
  if (op.cls == OpClass::attention_core && !spec::fused(ctx.attention_kernel)) {
    unfused_attention(op, fwd, t, ctx, out);
    return;
  }
  if (op.cls == OpClass::attention_core) {
    Kernel k;
    k.set_op(op.name);
    k.role = fwd ? hw::KernelRole::forward_pass : hw::KernelRole::backward_pass;
    k.cls = &hw::kAttentionClass;
    k.precision = op.precision;
    k.flops = t * (fwd ? op.fwd_flops : op.b_flops);
    k.hbm_bytes = t * (fwd ? op.io_bytes : op.bwd_io_bytes);
    k.backward = !fwd;
    k.causal = ctx.causal;
    k.head_dim = op.head_dim;
    k.seq = ctx.seq;
    out.push_back(k);
    return;
  }
  const double bytes = t * (fwd ? op.io_bytes : op.bwd_io_bytes) + params;
  if (bytes <= 0.0) return;
  out.push_back(
      memory_kernel(op.name, fwd ? hw::KernelRole::plain : hw::KernelRole::backward, bytes));
  if (op.group == "rmsnorm" || op.group == "layernorm")
    out.back().pattern = spec::MemoryPattern::reduction;
}

}  // namespace

void append_pass_kernels(const std::vector<const OpCost*>& ops, Phase pass,
                         const spec::RecomputeSpec* recompute, const KernelContext& ctx,
                         std::vector<Kernel>& out) {
  if (pass == Phase::forward) {
    for (const OpCost* op : ops) append_op_kernels(*op, pass, ctx, out);
    return;
  }
  if (recompute && pass != Phase::weight)
    for (const OpCost* op : ops)
      if (is_recomputed(*op, *recompute)) {
        const std::size_t from = out.size();
        append_op_kernels(*op, Phase::forward, ctx, out);
        for (std::size_t i = from; i < out.size(); ++i) out[i].recompute = true;
      }
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) append_op_kernels(**it, pass, ctx, out);
}

KernelContext kernel_context(const spec::ModelSpec& model, const spec::TrainingSpec& training,
                             double tokens_per_micro_batch, int tp, int ep,
                             bool sequence_parallel) {
  KernelContext c;
  c.tokens = tokens_per_micro_batch / tp;
  c.tp = tp;
  c.ep = ep;
  c.sequence_parallel = sequence_parallel;
  c.precision = training.precision;
  c.local_experts = model.moe.enabled ? std::max(1, model.moe.experts / ep) : 1;
  c.expert_load = expert_load_factor(model.moe, ep, c.tokens);
  c.seq = training.seq_len;
  c.causal = training.causal;
  c.attention_kernel = training.attention_kernel;
  c.attention_dropout = training.attention_dropout;
  return c;
}

std::vector<Kernel> op_kernels(const OpCost& op, Phase pass, const KernelContext& ctx) {
  std::vector<Kernel> out;
  append_op_kernels(op, pass, ctx, out);
  return out;
}

void append_op_kernels(const OpCost& op, Phase pass, const KernelContext& ctx,
                       std::vector<Kernel>& out) {
  const std::size_t from = out.size();
  append_kernels(op, pass, ctx, out);
  if (op.routed_copies)
    for (std::size_t i = from; i < out.size(); ++i) out[i].routed_copies = true;
}

}  // namespace stepsim::workload