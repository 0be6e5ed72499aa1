// Per-layer, per-op cost of a transformer: FLOPs, parameters, HBM bytes, saved activations.
//
// Everything is per token of one micro-batch and for the whole model (no parallel split).
// A linear layer y = x·Wᵀ with W of shape N×K costs, per token:
//     forward 2NK,  input gradient (B) 2NK,  weight gradient (W) 2NK          (3× forward in all)
// The attention core (QKᵀ, softmax, AV) per token, with h heads, d_qk and d_v head dims and
// `keys` = s/2 for causal attention (the masked half is not counted) or s otherwise:
//     forward 2·keys·h·(d_qk + d_v),   B = 2× forward,   W = 0
// so DeepSeek-V3 at s = 4096 counts 4096·128·320 = 168 MFLOP per token and layer, and its
// training FLOPs per token come to ≈ 250 G, DeepSeek's own figure.
// Routed experts are counted `top_k` times per token (their `copies`); their parameters are all
// experts'. Norms, activation functions, router top-k and the loss are elementwise: no FLOPs
// counted (as in every MFU convention), but their HBM traffic is.
//
// HBM bytes (`io_bytes`, `bwd_io_bytes`) count the activations a memory-bound op or the attention
// core reads and writes per token in forward and in backward; a GEMM's bytes follow from its
// shape (op_kernels.hpp). Besides the GEMMs and the attention core, every layer launches its
// norms, RoPE (rotary models), the two residual adds and the activation function; an MoE layer
// also the router's top-k and the permutation of token copies into expert order and back:
//     norm       F read x, write y: 2d          B read x, dy, write dx: 3d
//     residual   F read 2d, write d             B the same (the gradient's add)
//     SwiGLU     F read 2f, write f             B read 2f and df, write 2f: 5f   (GELU 2f / 3f)
//     RoPE       F, B read and write the rotated part of q and k
//     router     F read E fp32 scores, write k indices and k weights; B read k, E, write E
//     permute    F, B read and write k copies of the hidden state (dispatch / combine precision)
//     loss       F read the logits (V); B read them, write their gradient (V)
// in elements of the activation precision unless said.
// `saved_bytes` is what the op's output costs in activation memory until backward (GEMM inputs
// in the GEMM precision, the MLP activation function's input in `mlp_act_input`, other tensors
// in the activation precision); recomputing the op drops it and adds its forward FLOPs to
// backward. Each layer's input is always kept.
// Routed expert outputs are not kept: the gradient of the combine weight g_k in y = Σ
// g_k·W_down·a_k is ⟨dy, W_down·a_k⟩ = ⟨W_downᵀ·dy, a_k⟩. The expert computes W_downᵀ·(g_k·dy) for
// its input gradient anyway, so one dot product with its input a_k (kept, or recomputed with the
// activation function), divided by g_k, gives it: backward needs no copy of the top_k·hidden expert
// outputs per token. (Megatron-LM's default unpermute keeps them instead; that costs top_k·hidden
// activation-precision elements per token and MoE layer more than counted here.)
//
// Multi-token prediction (DeepSeek-V3 report §2.2): each module D looks up the embedding of token
// i+D, normalises it and the main model's final hidden state (two RMSNorms), projects their
// concatenation
// 2h -> h (one linear layer), runs one transformer block (MoE where the model's layers are), and
// predicts through the shared head: final norm, output GEMM and its own cross-entropy loss. The
// embedding and head are the main model's (no parameters of their own); the modules sit on the
// last pipeline stage after the head, as DeepSeek places them, and their FLOPs count in the
// step's (they are executed).
// Not modelled: dropout, biases' FLOPs, FlashAttention's own
// recomputation of QKᵀ in backward (hardware FLOPs above model FLOPs).
#pragma once

#include <string>
#include <vector>

#include "sim/spec/device.hpp"
#include "sim/spec/model.hpp"
#include "sim/spec/training.hpp"
#include "sim/workload/layer_index.hpp"

namespace stepsim::workload {

enum class OpClass { gemm, attention_core, elementwise, embedding };

struct OpCost {
  std::string name;   // e.g. "q_up", "expert_down"
  std::string group;  // recompute group, e.g. "rmsnorm", "mla_up_proj", "attn_core", "swiglu"
  OpClass cls = OpClass::gemm;
  spec::Precision precision = spec::Precision::bf16;
  bool routed_expert = false;  // parameters sharded by expert parallelism
  // Runs on the token copies the dispatch brings this GPU (a routed expert's GEMMs and activation,
  // not the permutations around the exchange, which reorder the GPU's own tokens' copies): the
  // busiest GPU's load sets it (expert_load.hpp).
  bool routed_copies = false;
  // Whole on every tensor-parallel rank unless sequence parallelism splits it: the norms, whose
  // tensors span the hidden dimension. Other elementwise ops act on tensor-parallel shards (the
  // activation function on the column-parallel up projection's output, the loss on
  // vocabulary-parallel logits) and split like the GEMMs around them.
  bool tp_replicated = false;
  double copies = 1.0;      // executions per token (top_k for routed experts)
  double n = 0.0, k = 0.0;  // GEMM output and reduction dims of one copy
  double fwd_flops = 0.0;   // per token, all copies
  double b_flops = 0.0;
  double w_flops = 0.0;
  double params = 0.0;         // parameters owned by the op
  double active_params = 0.0;  // parameters used by one token
  double io_bytes = 0.0;       // forward activation HBM bytes per token (not GEMMs: op_kernels)
  double bwd_io_bytes = 0.0;   // backward activation HBM bytes per token (not GEMMs)
  double saved_bytes = 0.0;    // activation bytes per token kept for backward
  double head_dim = 0.0;       // attention core: mean of the q·k and v head dimensions
  double heads = 0.0, qk_dim = 0.0, v_dim = 0.0;  // attention core: query heads, dimensions
  double kv_heads = 0.0;                          // attention core: key and value heads
  double act_bytes = 0.0;        // attention core: bytes of one element of q, k, v and the output
  bool input_quantized = false;  // an FP8 GEMM whose input arrives in FP8 (dispatched tokens)
  bool grad_quantized = false;   // ... whose output gradient arrives in FP8 (the combine's)
};

struct LayerCost {
  // 0-based transformer layer (multi-token prediction blocks after the main model's: layers ...
  // layers + mtp - 1); -1 for the embedding, -2 for the head, -4 for the MTP modules' head.
  int index = 0;  // its layer index, or kEmbedding, kHead, kMtpHead
  bool moe = false;
  bool mtp = false;  // a multi-token prediction block (or its head)
  std::vector<OpCost> ops;
  double input_bytes = 0.0;  // per token, always kept for backward

  double params() const { return params_; }
  double routed_params() const { return routed_params_; }
  double active_params() const;
  double fwd_flops() const;
  double train_flops() const;  // forward + B + W, no recompute

  // Sums the ops' parameters once their list is final (the memory and tail arithmetic of a layout
  // search reads them for every layout).
  void finish();

 private:
  double params_ = 0.0, routed_params_ = 0.0;
};

// Whether the recompute policy reruns this op's forward in backward.
bool is_recomputed(const OpCost& op, const spec::RecomputeSpec& spec);

// Whether each tensor-parallel rank runs the op on every token of the micro-batch (a norm without
// sequence parallelism) rather than on its share.
inline bool tp_replicated(const OpCost& op, int tp, bool sequence_parallel) {
  return op.tp_replicated && tp > 1 && !sequence_parallel;
}

// Parameters of the op one GPU reads: routed experts split by ep, the rest by tp; an embedding
// lookup reads only its tokens' rows (counted in io_bytes), not the table.
double op_local_params(const OpCost& op, int tp, int ep);

// Bytes one token's hidden state takes in an expert dispatch or combine at precision p; FP8
// payloads carry one fp32 scale per 128 elements (DeepSeek's 1x128 tiles).
double a2a_bytes_per_token(double hidden, spec::Precision p);

// What a model trains per token, as reports show it.
struct ModelFigures {
  double params_main = 0.0;  // the main model's
  double params_mtp = 0.0;   // multi-token prediction modules' (embedding and head shared)
  double params_active = 0.0;
  double flops_per_token = 0.0;  // training, no recompute (causal or not: the training's)
};

class ModelCost {
 public:
  ModelCost(const spec::ModelSpec& model, const spec::TrainingSpec& training);

  // Transformer layers (the MTP blocks last), then `embedding()` (before layer 0) and `head()`
  // (after the main model's last), and the MTP modules' head, `mtp_head()` (after their blocks).
  const std::vector<LayerCost>& layers() const { return layers_; }
  const LayerCost& embedding() const { return embedding_; }
  const LayerCost& head() const { return head_; }
  const LayerCost& mtp_head() const { return mtp_head_; }

  double params_total() const;  // main model and MTP modules
  double params_main() const;
  double params_mtp() const;
  double params_active() const;    // per token, embedding and head included
  double flops_per_token() const;  // training: forward + backward, no recompute
  ModelFigures figures() const;

  // Recompute applied to one layer: activation bytes kept per token, FLOPs added to backward.
  struct Recomputed {
    double saved_bytes = 0.0;
    double extra_flops = 0.0;
  };
  Recomputed recompute(const LayerCost& layer, const spec::RecomputeSpec& spec) const;

  // Op names and groups a recompute list may name, for validation and did-you-mean.
  std::vector<std::string> recompute_names() const;

 private:
  static Recomputed recompute_uncached(const LayerCost& layer, const spec::RecomputeSpec& spec);

  std::vector<LayerCost> layers_;
  spec::RecomputeSpec policy_;          // the training's
  std::vector<Recomputed> recomputed_;  // per layer, under policy_
  LayerCost embedding_;
  LayerCost head_;
  LayerCost mtp_head_;
};

}  // namespace stepsim::workload
