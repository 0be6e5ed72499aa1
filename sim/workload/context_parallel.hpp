// Context parallelism: a layer's attention core when each sequence of s tokens is split over the
// cp GPUs of a context-parallel group (parallelism.cp), as Megatron-Core runs it through
// Transformer Engine (transformer_engine/pytorch/attention/dot_product_attention/
// context_parallel.py, cp_comm_type) or DeepSpeed-Ulysses runs it. Every other op of the layer
// acts on the GPU's own s/cp tokens (ParallelPlan::tokens_per_micro_batch), so only the attention
// core and its exchanges are built here: per micro-batch, per layer, on each GPU of a
// tensor-parallel rank's heads (h_q query heads and h_kv key/value heads per GPU, d_qk and d_v
// their dimensions, e bytes per element, b sequences per micro-batch).
//
// One token's K and V: κ = h_kv·(d_qk + d_v)·e. Causal load balancing (p2p, all_gather, the
// ring of a2a+p2p): the sequence is cut into 2·R chunks of c = s/(2R) tokens and ring rank r
// holds chunks r and 2R-1-r (TE's get_batch_on_this_cp_rank), so every rank has the same causal
// work. Work is counted in (query, key) pairs per sequence and head, a causal block of q queries
// over the last q of its k keys as q·k - q²/2 (the convention of the model's FLOPs, s²/2 per
// sequence): a GPU's blocks add up to s²/(2·cp) whatever the algorithm.
//
//  - p2p (ring attention; TE AttnFuncWithCPAndKVP2P): R = cp steps. Step 0 attends to the
//    rank's own K and V: one causal block of 2c queries over 2c keys (2c² pairs). Step i > 0
//    attends to the K and V of ring rank j = (r - i) mod R, sent on round the ring: when j < r
//    both query chunks against key chunk j (2c × c), otherwise the later query chunk against both
//    key chunks (c × 2c), each 2c² pairs, none masked. Forward: while step i computes, the
//    K and V it holds go to the next rank (send_recv of 2c·b·κ bytes, steps 0..R-2: R-1
//    exchanges); step i+1 waits for it. Backward (TE's backward loop): step i sends K and V on
//    (i = 0), K, V and the accumulated dK, dV (0 < i < R-1) or dK, dV alone (i = R-1), so
//    2·(R-1) shifts of 2c·b·κ; a shift carries the dK, dV of the previous step, so it waits for
//    that step's kernel, and step i+1 waits for shift i. After the loop the rank's own dK, dV have
//    come home. Without causal masking every step is one full block of s/R × s/R.
//  - all_gather (TE AttnFuncWithCPAndKVAllGather; Llama 3 §3.3.2): K and V all-gathered over the
//    group (S = s·b·κ, the gathered output), then two causal blocks, chunk r over the first
//    (r+1)·c keys and chunk 2cp-1-r over the first (2cp-r)·c (rank 0's shapes are the ones
//    built); backward gathers K and V again, runs both blocks backward and reduce-scatters dK
//    and dV (S = s·b·κ). Nothing overlaps the exchanges.
//  - a2a (DeepSpeed-Ulysses, Jacobs et al. 2023; TE AttnFuncWithCPAndQKVOA2A): an all-to-all
//    over the group turns Q, K, V from s/cp tokens of all the GPU's heads into all s tokens of
//    1/cp of them (S = (s/cp)·b·(h_q·d_qk + h'_kv·(d_qk + d_v))·e), one causal block of s over
//    s runs on h_q/cp heads, and an all-to-all brings the output back (S = (s/cp)·b·h_q·d_v·e).
//    Backward: the output gradient forward (as the output), the attention backward, dQ, dK, dV
//    back (as Q, K, V). It needs cp to divide h_q (ParallelPlan refuses it otherwise). With
//    grouped-query attention and fewer key/value heads h_kv than cp, each is repeated to
//    h'_kv = cp heads before the exchange (every GPU needs the K and V of its query heads), so
//    the K, V bytes grow by cp/h_kv; h'_kv = h_kv otherwise.
//  - a2a_p2p (TE's hierarchical cp_comm_type "a2a+p2p"): the all-to-all inside groups of the a
//    context-parallel GPUs of a node, then ring attention as p2p over R = cp/a ranks, on all the
//    tokens of the a GPUs and 1/a of the heads.
// Each exchange is a collective of the step program (kind cp): the ring shifts a send_recv
// over the ring group (net/algorithm/shift.cpp), the others over the whole group or the
// all-to-all group. Memory (workload/memory.hpp, cp_buffer_bytes): p2p double-buffers K, V and
// dK, dV in backward (4·2c·b·κ); all_gather holds the gathered K, V and, in backward, the full
// dK, dV (2·s·b·κ); a2a a second copy of Q, K, V and the output (the all-to-all's outputs).
// Not modelled: the rescaling of partial outputs between ring steps (an elementwise kernel on
// the output), the masked attention of padded or packed (THD) sequences, FP8 attention's
// exchanges, sliding windows; the all-gather blocks of other ranks than 0 (the same pairs in
// other shapes).
#pragma once

#include <vector>

#include "sim/net/collective_cost.hpp"
#include "sim/spec/parallel.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/op_kernels.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::workload {

class CollectiveMaker;

struct CpLayout {
  int cp = 1;
  spec::CpAlgorithm algorithm = spec::CpAlgorithm::p2p;
  int a2a = 1;  // GPUs of the head all-to-all: cp (a2a), a node's (a2a_p2p), else 1
  // Ranks of the K, V ring (its steps): cp / a2a for p2p and a2a_p2p, 1 otherwise.
  int ring() const;
};
CpLayout cp_layout(const ParallelPlan& plan);

// A block of attention: `queries` over the last `queries` positions of `keys` keys, per sequence
// and head; causal masks the pairs whose key lies after the query.
struct AttentionBlock {
  double queries = 0.0, keys = 0.0;
  bool causal = false;
  double pairs() const;  // q·k, causal q·k - q²/2
};

// Ring step `step` of ring rank `rank` over a ring of `ring` ranks, for sequences of `seq` tokens
// (all of them: after a2a_p2p's all-to-all the ring runs over the whole sequence).
AttentionBlock ring_block(double seq, int ring, int rank, int step, bool causal);
// The blocks of all_gather on rank `rank` of `cp`.
std::vector<AttentionBlock> gather_blocks(double seq, int cp, int rank, bool causal);

// One exchange of a pass, per GPU and micro-batch: its operation, group and bytes (S as
// net/collective_cost.hpp defines it), how many times the pass runs it.
struct CpExchange {
  net::CollectiveOp op = net::CollectiveOp::send_recv;
  GroupRole group = GroupRole::cp;
  double bytes = 0.0;
  int count = 1;
};
// Heads of one GPU's attention after the all-to-all: query heads and key/value heads (the latter
// repeated up to the all-to-all's GPUs when fewer), for a tensor-parallel rank's share.
struct CpHeads {
  double q = 0.0, kv = 0.0;
};
CpHeads cp_heads(const OpCost& attn, int tp, const CpLayout& cp);
// The exchanges of a pass (forward, or backward with or without the weight gradient) for `attn`,
// sequences of `seq` tokens, `sequences` per micro-batch.
std::vector<CpExchange> cp_exchanges(const OpCost& attn, double seq, double sequences, int tp,
                                     const CpLayout& cp, bool backward);

// The exchange buffers one GPU holds while a layer's attention runs (the header's Memory).
double cp_buffer_bytes(const OpCost& attn, double seq, double sequences, int tp,
                       const CpLayout& cp);

// The attention kernels of one pass on ring rank 0, one per block in the order they run (a ring's
// steps, all_gather's two blocks, Ulysses' one), for one micro-batch on one GPU.
std::vector<hw::Kernel> cp_attention_kernels(const OpCost& attn, bool backward, bool recompute,
                                             const KernelContext& ctx, const CpLayout& cp);

// One pass of a layer's attention core: backward or forward, and a forward rerun ahead of the
// backward (`recompute`).
struct CpPass {
  bool backward = false, recompute = false;
  int layer = 0;
};
// What the passes of a layout share: its kernels' shape, its context-parallel layout, and the
// maker of its collectives.
struct CpContext {
  const KernelContext& kernels;
  const CpLayout& layout;
  CollectiveMaker& collective;
};

// Appends the attention core of one pass under context parallelism to `chain`: its exchanges
// and attention blocks as works, with their dependencies (ring steps overlapping the next
// step's shift).
void append_cp_attention(Chain& chain, const OpCost& attn, CpPass pass, const CpContext& c);

}  // namespace stepsim::workload
