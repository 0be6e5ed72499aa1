#include "sim/workload/context_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/engine/check.hpp"
#include "sim/workload/collective_options.hpp"

namespace stepsim::workload {

using net::CollectiveOp;
using spec::CpAlgorithm;

int CpLayout::ring() const {
  return algorithm == CpAlgorithm::p2p || algorithm == CpAlgorithm::a2a_p2p ? cp / a2a : 1;
}

CpLayout cp_layout(const ParallelPlan& plan) {
  return {plan.cp, plan.cp_algorithm, plan.cp_a2a};
}

double AttentionBlock::pairs() const {
  return causal ? queries * keys - queries * queries / 2.0 : queries * keys;
}

AttentionBlock ring_block(double seq, int ring, int rank, int step, bool causal) {
  STEPSIM_CHECK(ring >= 1 && rank >= 0 && rank < ring && step >= 0 && step < ring,
                "a ring step out of range");
  if (!causal) return {seq / ring, seq / ring, false};
  const double c = seq / (2.0 * ring);
  if (step == 0) return {2.0 * c, 2.0 * c, true};
  const int from = ((rank - step) % ring + ring) % ring;
  return from < rank ? AttentionBlock{2.0 * c, c, false} : AttentionBlock{c, 2.0 * c, false};
}

std::vector<AttentionBlock> gather_blocks(double seq, int cp, int rank, bool causal) {
  if (!causal) return {{seq / cp, seq, false}};
  const double c = seq / (2.0 * cp);
  return {{c, (rank + 1) * c, true}, {c, (2.0 * cp - rank) * c, true}};
}

CpHeads cp_heads(const OpCost& attn, int tp, const CpLayout& cp) {
  const double kv_tp = std::max(attn.kv_heads / tp, 1.0);
  return {attn.heads / tp / cp.a2a, std::max(kv_tp, static_cast<double>(cp.a2a)) / cp.a2a};
}

std::vector<CpExchange> cp_exchanges(const OpCost& attn, double seq, double sequences, int tp,
                                     const CpLayout& cp, bool backward) {
  std::vector<CpExchange> out;
  if (cp.cp <= 1) return out;
  out.reserve(4);
  const CpHeads h = cp_heads(attn, tp, cp);
  const double e = attn.act_bytes, dqk = attn.qk_dim, dv = attn.v_dim;
  const double local = seq / cp.cp * sequences;  // tokens a GPU holds before any all-to-all
  // Per GPU before the all-to-all: a2a times the heads it holds after it.
  const double q_bytes = local * cp.a2a * h.q * dqk * e;
  const double kv_bytes = local * cp.a2a * h.kv * (dqk + dv) * e;
  const double o_bytes = local * cp.a2a * h.q * dv * e;
  if (cp.algorithm == CpAlgorithm::all_gather) {
    const double gathered = kv_bytes * cp.cp;
    out.push_back({CollectiveOp::all_gather, GroupRole::cp, gathered, 1});
    if (backward) out.push_back({CollectiveOp::reduce_scatter, GroupRole::cp, gathered, 1});
    return out;
  }
  const bool a2a = cp.a2a > 1;
  if (a2a)  // Q, K, V (backward: the output gradient) towards heads
    out.push_back(
        {CollectiveOp::all_to_all, GroupRole::cp_a2a, backward ? o_bytes : q_bytes + kv_bytes, 1});
  if (const int r = cp.ring(); r > 1) {
    if (!backward) {
      out.push_back({CollectiveOp::send_recv, GroupRole::cp_ring, kv_bytes, r - 1});
    } else {
      out.push_back({CollectiveOp::send_recv, GroupRole::cp_ring, kv_bytes, 2});
      if (r > 2)
        out.push_back({CollectiveOp::send_recv, GroupRole::cp_ring, 2.0 * kv_bytes, r - 2});
    }
  }
  if (a2a)  // the output (backward: dQ, dK, dV) back to the sequence
    out.push_back(
        {CollectiveOp::all_to_all, GroupRole::cp_a2a, backward ? q_bytes + kv_bytes : o_bytes, 1});
  return out;
}

double cp_buffer_bytes(const OpCost& attn, double seq, double sequences, int tp,
                       const CpLayout& cp) {
  if (cp.cp <= 1) return 0.0;
  double bytes = 0.0;
  for (const CpExchange& x : cp_exchanges(attn, seq, sequences, tp, cp, false)) {
    if (x.op == CollectiveOp::all_gather) bytes += 2.0 * x.bytes;  // K, V and dK, dV gathered
    if (x.op == CollectiveOp::send_recv) bytes += 4.0 * x.bytes;   // K, V, dK, dV, twice
    if (x.op == CollectiveOp::all_to_all) bytes += x.bytes;        // the received copies
  }
  return bytes;
}

namespace {

// Sequences of a micro-batch: the context's tokens are its share, s/cp of each, split by tp.
double sequences_of(const KernelContext& ctx, const CpLayout& cp) {
  return ctx.tokens * cp.cp * ctx.tp / ctx.seq;
}

// The attention kernel of one block, per GPU: `sequences` sequences of h.q query heads.
hw::Kernel block_kernel(const OpCost& attn, const AttentionBlock& b, double sequences,
                        const CpHeads& h, bool backward, bool recompute) {
  hw::Kernel k;
  k.set_op(attn.name);
  k.role = backward ? hw::KernelRole::backward_pass : hw::KernelRole::forward_pass;
  k.recompute = recompute;
  k.cls = &hw::kAttentionClass;
  k.precision = attn.precision;
  const double fwd = b.pairs() * sequences * h.q * 2.0 * (attn.qk_dim + attn.v_dim);
  k.flops = backward ? 2.0 * fwd : fwd;
  const double io =
      sequences *
      (b.queries * h.q * (attn.qk_dim + attn.v_dim) + b.keys * h.kv * (attn.qk_dim + attn.v_dim)) *
      attn.act_bytes;
  // Backward reads what forward read and its gradients, writes dQ, dK, dV, and reads the fp32
  // log-sum-exp of the queries.
  k.hbm_bytes = backward ? 2.0 * io + sequences * b.queries * h.q * 4.0 : io;
  k.backward = backward;
  k.causal = b.causal;
  k.head_dim = attn.head_dim;
  // The tables are indexed by square shapes: a q x k block is looked up as the square of its area.
  k.seq = std::sqrt(b.queries * b.keys);
  return k;
}

Work kernel_work(const std::string& part, int layer, std::vector<hw::Kernel> kernels) {
  Work w;
  w.part = part;
  w.layer = layer;
  w.kernels = std::move(kernels);
  return w;
}

Work exchange_work(const std::string& part, int layer, CollectiveWork c) {
  Work w;
  w.stream = StreamKind::comm;
  w.kind = StepOpKind::cp_exchange;
  w.part = part;
  w.layer = layer;
  w.collectives = {std::move(c)};
  return w;
}

}  // namespace

std::vector<hw::Kernel> cp_attention_kernels(const OpCost& attn, bool backward, bool recompute,
                                             const KernelContext& ctx, const CpLayout& cp) {
  const double sequences = sequences_of(ctx, cp);
  const CpHeads h = cp_heads(attn, ctx.tp, cp);
  std::vector<AttentionBlock> bs;
  if (cp.algorithm == CpAlgorithm::all_gather) {
    bs = gather_blocks(ctx.seq, cp.cp, 0, ctx.causal);
  } else {
    for (int i = 0; i < cp.ring(); ++i)
      bs.push_back(ring_block(ctx.seq, cp.ring(), 0, i, ctx.causal));
  }
  std::vector<hw::Kernel> ks;
  for (const AttentionBlock& b : bs)
    ks.push_back(block_kernel(attn, b, sequences, h, backward, recompute));
  return ks;
}

void append_cp_attention(Chain& chain, const OpCost& attn, CpPass pass, const CpContext& c) {
  const bool backward = pass.backward, recompute = pass.recompute;
  const int layer = pass.layer;
  const KernelContext& ctx = c.kernels;
  const CpLayout& cp = c.layout;
  CollectiveMaker& collective = c.collective;
  const double sequences = sequences_of(ctx, cp);
  const std::string again = recompute ? " (recompute)" : "";
  auto made = [&](const CpExchange& x) { return collective(x.op, x.bytes, x.group); };
  const std::vector<CpExchange> ex = cp_exchanges(attn, ctx.seq, sequences, ctx.tp, cp, backward);
  const std::vector<hw::Kernel> blocks = cp_attention_kernels(attn, backward, recompute, ctx, cp);

  if (cp.algorithm == CpAlgorithm::all_gather) {
    chain.push_back(exchange_work("cp all-gather kv" + again, layer, made(ex[0])));
    chain.push_back(kernel_work("cp attn" + again, layer, blocks));
    if (backward) chain.push_back(exchange_work("cp reduce-scatter dkv", layer, made(ex[1])));
    return;
  }
  const bool a2a = cp.a2a > 1;
  if (a2a) chain.push_back(exchange_work("cp all-to-all in" + again, layer, made(ex.front())));
  const int r = cp.ring();
  if (r == 1) {
    chain.push_back(kernel_work("cp attn" + again, layer, blocks));
  } else {
    // Step i's kernel and the shift beside it. Forward: shift i (the K, V held) feeds step i+1.
    // Backward: shift i also carries the dK, dV of step i-1, so it waits for that kernel.
    const CpExchange& kv = ex[a2a ? 1 : 0];
    const CpExchange* both = backward && r > 2 ? &ex[a2a ? 2 : 1] : nullptr;
    const int shifts = backward ? r : r - 1;
    for (int i = 0; i < r; ++i) {
      Work step = kernel_work("cp attn step " + std::to_string(i) + again, layer, {blocks[i]});
      step.blocks_next = false;
      if (i > 0) step.after_back = 1;  // shift i-1, just before it
      chain.push_back(std::move(step));
      if (i >= shifts) break;
      const bool carries_both = both && i > 0 && i < r - 1;
      Work shift = exchange_work(std::string(!backward      ? "cp kv shift "
                                             : carries_both ? "cp kv+dkv shift "
                                             : i == 0       ? "cp kv shift "
                                                            : "cp dkv shift ") +
                                     std::to_string(i) + again,
                                 layer, made(carries_both ? *both : kv));
      shift.blocks_next = false;
      if (backward && i > 0) shift.after_back = 3;  // step i-1's kernel
      chain.push_back(std::move(shift));
    }
    // What follows waits for the last kernel (through the compute stream, or here) and, in
    // backward, for the dK, dV that come home with the last shift.
    chain.back().blocks_next = true;
  }
  if (a2a) {
    Work out = exchange_work("cp all-to-all out" + again, layer, made(ex.back()));
    if (backward && r > 1) out.after_back = 2;  // the last step's kernel
    chain.push_back(std::move(out));
  }
}

}  // namespace stepsim::workload
