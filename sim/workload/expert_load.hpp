// Expert load: how far the busiest GPU of an expert-parallel group is above the mean, from the
// routing's per-expert shares (spec::RoutingSpec).
//
// With n routed experts placed on the ep GPUs of a group in contiguous blocks (expert j on GPU
// ⌊j·ep/n⌋, as Megatron-Core and DeepEP place them), GPU g receives the share
//     L_g = Σ_{j on g} p_j           (Σ_j p_j = 1; balanced: p_j = 1/n, L_g = 1/ep)
// of the group's token copies, and the load factor is
//     f = ep · max_g L_g  ≥ 1.
// zipf(s): p ∝ 1/r^s for the popularity ranks r = 1..n, dealt to the experts by a Fisher-Yates
// shuffle drawn from the seed (splitmix64: the same seed gives the same placement anywhere);
// histogram: the given shares, normalised.
// loss_free: DeepSeek's auxiliary-loss-free balancing (Wang et al., arXiv 2408.15664; DeepSeek-V3,
// arXiv 2412.19437 §2.1.2: a per-expert bias added to the routing scores, moved by γ = 0.001
// after every step against the expert's load over the whole batch). At its fixed point every
// expert's expected share is 1/n whatever the router prefers (its validation-set MaxVio, the
// busiest expert's load over the mean minus 1, is 0.04 against 0.72 with an auxiliary loss at
// 1B parameters, as that paper's Table 2 is quoted), so a step's imbalance is the spread of its
// own counts: each of the T = t·ep tokens a group dispatches picks k distinct experts of n, so a
// GPU's n/ep experts receive a hypergeometric count per token, and its copies have
//     mean T·k/ep,   σ_rel = sqrt((ep − 1)(n − k) / ((n − 1)·T·k)),
// and the busiest of the ep GPUs, the counts nearly independent normals, f = 1 + e_ep·σ_rel
// (e_n, hw/variability.hpp). DeepSeek-V3 (T = 64·4096, k = 8 of 256): σ = 0.55 %, f = 1.013.
// A lower bound for real batches: tokens of one sequence route alike (the paper's per-batch
// MaxVio is well above the sampling spread), which this leaves out.
// With R redundant slots (EPLB, deepseek-ai/EPLB's README and its greedy policy): each slot goes
// in turn to the expert whose replicas carry the most each (p_j / c_j), every replica carries
// p_j / c_j, and the replicas, heaviest first, are packed onto the GPU of least load with a free
// slot ((n + R) / ep slots each); L_g is then the sum of its replicas. A replica costs what an
// expert costs: its weights, gradients and optimizer state on its GPU and in the expert
// gradients' reduction (held_params.hpp: (n + R) / n times the routed parameters). Not modelled:
// EPLB's hierarchical policy (groups to nodes first) and the exchange that keeps replicas of one
// expert equal (their gradients summed across the slots).
//
// The step is then charged as the busiest GPU runs it: its grouped expert GEMMs and the
// memory-bound kernels on its token copies take f times the mean rows, and the dispatch and
// combine move f times the mean bytes (the all-to-all ends when the busiest receiver has its
// tokens). Every GPU of the group is charged so, since each waits for the busiest at the combine:
// the others, computing 1/f of it on average, wait the rest, which the metrics report as
// synchronisation (analysis/step_metrics.hpp). Not modelled: the counts' sampling noise within a
// step (multinomial, about 1/√(copies per expert): ~1 % at DeepSeek-V3's 8,192 copies per expert
// and micro-batch), node-limited routing's effect on the shares, groups whose placements differ,
// and the busiest GPU's larger activation memory.
#pragma once

#include <vector>

#include "sim/spec/model.hpp"

namespace stepsim::workload {

// Per routed expert, its share of the token copies (summing to 1).
std::vector<double> expert_shares(const spec::MoeSpec& moe);

// σ: the relative spread of one GPU's token copies in a step whose T = tokens_per_gpu · ep tokens
// each pick top_k distinct experts of n uniformly (loss_free routing, above).
double sampling_spread(const spec::MoeSpec& moe, int ep, double tokens_per_gpu);

// f = ep · max_g L_g: the busiest GPU's token copies over the mean (1 when balanced, or without
// experts); loss_free: 1 + e_ep · σ, for GPUs dispatching `tokens_per_gpu` tokens each.
double expert_load_factor(const spec::MoeSpec& moe, int ep, double tokens_per_gpu);

}  // namespace stepsim::workload
