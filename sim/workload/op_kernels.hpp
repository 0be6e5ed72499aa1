// The kernels a Megatron- or DeepSeek-style framework launches for one op of the cost model in
// one pass of training, with their shapes and HBM bytes, on one GPU.
//
// With t tokens of the micro-batch on the GPU (split by tp; all of them on every tensor-parallel
// rank for an op model_cost.hpp marks tp_replicated), a linear layer N×K run c times per token
// launches, on every tensor-parallel rank, its shard (tensor parallelism splits the larger of N
// and K) over all the micro-batch's tokens: M = t·tp·c rows (routed experts: a grouped GEMM of
// the GPU's E experts, M/E rows each):
//     F   [quantize input]      GEMM fprop  (M, N, K)      reads A M·K, B N·K, writes C M·N
//     B   [quantize dy + dyᵀ]   GEMM dgrad  (M, K, N)      reads dy M·N, B, writes dx M·K
//     W   [transpose input]     GEMM wgrad  (N, K, M)      reads dy, x, reads and writes dW
//                                                          (in the gradient precision)
// in the bracketed FP8 kernels only when the GEMM runs in FP8: every BF16 input is cast to FP8
// with one fp32 scale per 1×128 tile (read 2 B, write 1 B + 4/128 B per element), the output
// gradient cast and transposed in one kernel (its two FP8 copies: rows for dgrad, columns for
// wgrad), and the saved FP8 input re-tiled as its transpose for wgrad (DeepSeek-V3 report §3.3,
// §3.5). An expert's up projection whose input arrives in FP8 from the dispatch quantizes nothing;
// its down projection, whose output gradient arrives in FP8 from the combine's transpose, only
// transposes it.
// The weights' FP8 copies and their transposes are made once per step, after the optimizer
// (step_program.cpp). A fused backward (B and W) launches both lists.
// Attention core (spec::AttentionKernel): flash, one kernel forward and one backward
// (FlashAttention), each reading its inputs and writing its outputs once; unfused (Megatron's
// fused-softmax, or eager), with G = b·a (sequence, head) pairs of s queries and s keys and the
// scores in the attention precision (e bytes each):
//     F   Q·Kᵀ  batched GEMM (s, s, d_qk) x G     reads Q, K, writes the scores   G·s²·e
//         [scale, mask: eager only]               each reads and writes           2·G·s²·e
//         softmax (Megatron: scale, mask fused)   reads and writes                2·G·s²·e
//         [dropout, when training.attention_dropout > 0]  + a one-byte mask       2·G·s²·e + G·s²
//         P·V   batched GEMM (s, d_v, s) x G      reads the probabilities         G·s²·e
//     B   dP = dO·Vᵀ (s, s, d_v), dV = Pᵀ·dO (s, d_v, s), [dropout backward], softmax backward
//         (reads dP and the probabilities, writes dS: 3·G·s²·e), [mask, scale backward: eager],
//         dQ = dS·K and dK = dSᵀ·Q (s, d_qk, s)
// (Korthikanti et al. 2022, §4.1, count the same tensors for activation memory.) The batched
// GEMMs compute the masked half of causal scores too, so their FLOPs are the executed ones.
// Memory-bound ops (norms, RoPE, residual adds, activation function, router top-k, permutation and
// un-permutation, embedding, loss) launch one kernel per pass with the bytes model_cost.hpp counts,
// plus their parameters read. Recomputed ops' forward kernels are launched again by the caller
// ahead of the backward (layer_chains.hpp). Each memory-bound kernel names its access pattern
// (spec::MemoryPattern), which picks the device's memory rows it is timed from: the casts cast,
// the cast-and-transposes and the weights' FP8 copies cast_transpose, the FP8 re-tilings
// transpose, norms and softmax reduction, the rest copy. Not modelled: kernel fusion beyond the
// fused kernels named here (e.g. a norm fused with the quantization of its output), the amax
// reductions of delayed scaling, bias gradients.
#pragma once

#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/phase.hpp"

namespace stepsim::workload {

struct KernelContext {
  double tokens = 0.0;  // tokens of the micro-batch on this GPU (split by tp)
  int tp = 1, ep = 1;
  bool sequence_parallel = false;
  spec::PrecisionPolicy precision;
  int local_experts = 1;  // routed experts held by this GPU
  // The busiest GPU's token copies over the mean (expert_load.hpp): routed experts' ops run on
  // that many times the mean copies.
  double expert_load = 1.0;
  double seq = 0.0;
  bool causal = true;
  spec::AttentionKernel attention_kernel = spec::AttentionKernel::flash;
  double attention_dropout = 0.0;
};

KernelContext kernel_context(const spec::ModelSpec& model, const spec::TrainingSpec& training,
                             double tokens_per_micro_batch, int tp, int ep, bool sequence_parallel);

// The kernels `op` launches in `pass`, in launch order (none for a W pass of an op without
// weights).
std::vector<hw::Kernel> op_kernels(const OpCost& op, Phase pass, const KernelContext& ctx);
// The same, appended to `out`.
void append_op_kernels(const OpCost& op, Phase pass, const KernelContext& ctx,
                       std::vector<hw::Kernel>& out);
// The kernels of `ops` (in layer order) in `pass`, appended to `out`: forward in order; backward
// passes first rerun the forward of the ops `recompute` names (none when null), then run each op's
// kernels in reverse order.
void append_pass_kernels(const std::vector<const OpCost*>& ops, Phase pass,
                         const spec::RecomputeSpec* recompute, const KernelContext& ctx,
                         std::vector<hw::Kernel>& out);

}  // namespace stepsim::workload
