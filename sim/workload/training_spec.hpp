// How the model is trained: sequence and batch sizes, precision per tensor class, recomputation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/hw/precision.hpp"

namespace stepsim::workload {

// Precision of each class of tensor or arithmetic. `gemm` covers the linear layers of the
// transformer blocks (attention projections, MLP and experts); `head` the embedding and output
// head; `router` the MoE gate; `attention` the attention core (QK^T, softmax, AV). `activations`
// is the precision of activations kept for backward and sent between stages; GEMM inputs are
// kept in the GEMM precision. `mlp_act_input` is the kept input of the MLP's activation function
// (the up projection's output; DeepSeek caches it in FP8, arXiv 2412.19437 §3.3.2), by default
// the activation precision. `dispatch`/`combine` are the all-to-all payloads (DeepSeek: FP8
// dispatch, BF16 combine, the same in backward). `master` and `optimizer` are per parameter.
struct PrecisionPolicy {
  hw::Precision gemm = hw::Precision::bf16;
  hw::Precision attention = hw::Precision::bf16;
  hw::Precision head = hw::Precision::bf16;
  hw::Precision router = hw::Precision::bf16;
  hw::Precision activations = hw::Precision::bf16;
  std::optional<hw::Precision> mlp_act_input;  // unset: `activations`
  hw::Precision dispatch = hw::Precision::bf16;
  hw::Precision combine = hw::Precision::bf16;
  hw::Precision params = hw::Precision::bf16;
  hw::Precision grads = hw::Precision::fp32;
  hw::Precision master = hw::Precision::fp32;
  hw::Precision optimizer = hw::Precision::fp32;  // each of Adam's two moments
};

enum class RecomputeMode { none, full, selective, ops };

// none: keep every activation backward needs. full: keep only each layer's input and rerun the
// layer's forward in backward. selective: recompute the attention core (Megatron's choice). ops:
// recompute the named ops or op groups (e.g. DeepSeek's [rmsnorm, mla_up_proj, swiglu]).
struct RecomputeSpec {
  RecomputeMode mode = RecomputeMode::none;
  std::vector<std::string> ops;
};

struct TrainingSpec {
  int seq_len = 0;
  long long global_batch = 0;  // sequences per step
  int micro_batch = 1;         // sequences per micro-batch
  bool causal = true;          // causal attention (FLOPs of the masked half not counted)
  PrecisionPolicy precision;
  RecomputeSpec recompute;
};

}  // namespace stepsim::workload
