// How the model is trained: sequence and batch sizes, precision per tensor class, recomputation.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/spec/names.hpp"
#include "sim/spec/precision.hpp"

namespace stepsim::spec {

// Precision of each class of tensor or arithmetic. `gemm` covers the linear layers of the
// transformer blocks (attention projections, MLP and experts); `head` the embedding and output
// head; `router` the MoE gate; `attention` the attention core (QK^T, softmax, AV). `activations`
// is the precision of activations kept for backward and sent between stages; GEMM inputs are
// kept in the GEMM precision. `mlp_act_input` is the kept input of the MLP's activation function
// (the up projection's output; DeepSeek caches it in FP8, arXiv 2412.19437 §3.3.2), by default
// the activation precision. `dispatch`/`combine` are the all-to-all payloads (DeepSeek: FP8
// dispatch, BF16 combine, the same in backward). `master` and `optimizer` are per parameter.
struct PrecisionPolicy {
  Precision gemm = Precision::bf16;
  Precision attention = Precision::bf16;
  Precision head = Precision::bf16;
  Precision router = Precision::bf16;
  Precision activations = Precision::bf16;
  std::optional<Precision> mlp_act_input;  // unset: `activations`
  Precision dispatch = Precision::bf16;
  Precision combine = Precision::bf16;
  Precision params = Precision::bf16;
  Precision grads = Precision::fp32;
  Precision master = Precision::fp32;
  Precision optimizer = Precision::fp32;  // each of Adam's two moments
};

enum class RecomputeMode { none, full, selective, ops };

// none: keep every activation backward needs. full: keep only each layer's input and rerun the
// layer's forward in backward. selective: recompute the attention core (Megatron's choice). ops:
// recompute the named ops or op groups (e.g. DeepSeek's [rmsnorm, mla_up_proj, swiglu]).
// The mode's word as a scenario writes it: none, full, selective; ops for a list of ops.
std::string_view recompute_word(RecomputeMode m);

struct RecomputeSpec {
  RecomputeMode mode = RecomputeMode::none;
  std::vector<std::string> ops;
};

// How the attention core runs (workload/op_kernels.hpp):
//   flash          one fused kernel per pass, no s x s tensor in HBM (FlashAttention-2/3,
//                  FlashMLA), timed from the attention tables (the first library listed);
//   flash2, flash3 the same, timed from FlashAttention-2's or -3's tables (library flash2,
//                  flash3);
//   fused-softmax  Megatron-LM 2021/22 (Narayanan et al., SC'21, §4.2): Q·Kᵀ and P·V as batched
//                  GEMMs around one fused scale-mask-softmax kernel, dropout a kernel of its own;
//   eager          PyTorch without fusion: scale, mask and softmax each a kernel.
enum class AttentionKernel { flash, fused_softmax, eager, flash2, flash3 };
inline constexpr Names<AttentionKernel, 5> kAttentionKernels{
    {{"flash"}, {"fused-softmax"}, {"eager"}, {"flash2"}, {"flash3"}}};

// Whether the attention core is one fused kernel per pass (no s x s tensor in HBM).
inline bool fused(AttentionKernel a) {
  return a == AttentionKernel::flash || a == AttentionKernel::flash2 ||
         a == AttentionKernel::flash3;
}

// The library of attention tables an implementation is timed from ("": the first listed).
inline const char* attention_library(AttentionKernel a) {
  return a == AttentionKernel::flash2 ? "flash2" : a == AttentionKernel::flash3 ? "flash3" : "";
}

struct TrainingSpec {
  int seq_len = 0;
  long long global_batch = 0;  // sequences per step
  int micro_batch = 1;         // sequences per micro-batch
  bool causal = true;          // causal attention (FLOPs of the masked half not counted)
  PrecisionPolicy precision;
  RecomputeSpec recompute;
  AttentionKernel attention_kernel = AttentionKernel::flash;
  // Dropout on the attention probabilities (Megatron-LM's --attention-dropout, 0.1 by default):
  // with an unfused attention core, a kernel of its own and a one-byte mask per score kept for
  // backward. Flash kernels apply it inside (no extra traffic).
  double attention_dropout = 0.0;
  // Where `precision` came from, for people: the scenario, the model's published policy, or the
  // default.
  std::string precision_from = "stepsim's default: BF16 mixed precision";
};

// The policy in words: "gemm fp8, attention bf16, ..., optimizer bf16".
std::string describe(const PrecisionPolicy& p);
// Its tensor classes in that order, with their precision (mlp_act_input resolved).
std::vector<std::pair<std::string, Precision>> precision_fields(const PrecisionPolicy& p);

// "fused-softmax, dropout 0.1": the attention core's implementation, and its dropout where it
// launches kernels of its own.
std::string attention_words(const TrainingSpec& t);

}  // namespace stepsim::spec
