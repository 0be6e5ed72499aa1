// A transformer language model's architecture: the fields of a Hugging Face config.json, named
// for what they are. Dense attention (MHA, GQA) or MLA; dense MLP (SwiGLU or GELU) or MoE
// (top-k routed + shared experts, optionally node-limited via expert groups).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/user_error.hpp"
#include "sim/spec/names.hpp"
#include "sim/spec/training.hpp"

namespace stepsim::spec {

enum class AttentionKind { mha, gqa, mla };
inline constexpr Names<AttentionKind, 3> kAttentionKinds{
    {{"mha", "MHA"}, {"gqa", "GQA"}, {"mla", "MLA"}}};
enum class MlpKind { swiglu, gelu };
inline constexpr Names<MlpKind, 2> kMlpKinds{{{"swiglu", "SwiGLU"}, {"gelu", "GELU"}}};
enum class NormKind { rmsnorm, layernorm };
inline constexpr Names<NormKind, 2> kNormKinds{
    {{"rmsnorm", "RMSNorm"}, {"layernorm", "LayerNorm"}}};

struct AttentionSpec {
  AttentionKind kind = AttentionKind::mha;
  int heads = 0;
  int kv_heads = 0;  // mha: = heads
  int head_dim = 0;  // mha/gqa
  // mla
  int q_lora_rank = 0;  // 0: q projected directly from the hidden state
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;

  int qk_dim() const {
    return kind == AttentionKind::mla ? qk_nope_head_dim + qk_rope_head_dim : head_dim;
  }
};

struct MlpSpec {
  MlpKind kind = MlpKind::swiglu;
  int intermediate = 0;
};

// How a step's tokens spread over the routed experts (workload/expert_load.hpp): balanced (each
// expert its mean share), zipf (expert popularity proportional to 1 / rank^s, the ranks dealt to
// the experts by a shuffle drawn from `seed`), histogram (a share per expert, in expert order), or
// loss_free (DeepSeek's auxiliary-loss-free balancing: every expert its mean share in
// expectation, a step's counts drawn around it).
enum class RoutingKind { balanced, zipf, histogram, loss_free };
inline constexpr Names<RoutingKind, 4> kRoutingKinds{
    {{"balanced"}, {"zipf"}, {"histogram"}, {"loss_free"}}};

struct RoutingSpec {
  RoutingKind kind = RoutingKind::balanced;
  double s = 1.0;              // zipf exponent
  std::uint64_t seed = 0;      // zipf: the shuffle of ranks onto experts
  std::vector<double> shares;  // histogram: per expert, any scale
  // Redundant expert slots per expert-parallel group, placed as DeepSeek's EPLB places them
  // (deepseek-ai/EPLB: the hottest experts replicated, the replicas packed onto the GPUs by load);
  // 0: none, experts in contiguous blocks.
  int redundant = 0;
};

struct MoeSpec {
  bool enabled = false;
  int experts = 0;  // routed experts
  int shared_experts = 0;
  int top_k = 0;
  int intermediate = 0;        // per expert
  int first_dense_layers = 0;  // layers before the first MoE layer use the dense MLP
  int every = 1;               // after those, every n-th layer is MoE
  int groups = 0;              // expert groups for node-limited routing (0 = none)
  int topk_groups = 0;         // groups (nodes) a token may reach
  RoutingSpec routing;
};

struct ModelSpec {
  std::string name;
  int hidden = 0;
  int layers = 0;
  int vocab = 0;
  bool tie_embeddings = false;
  int learned_positions = 0;  // rows of a learned position embedding (0: rotary, no parameters)
  int mtp_layers = 0;         // multi-token prediction modules (num_nextn_predict_layers)
  bool bias = false;          // linear layers carry biases
  NormKind norm = NormKind::rmsnorm;
  AttentionSpec attention;
  MlpSpec mlp;
  MoeSpec moe;
  // Named lists of ops to recompute that the model's trainers used or suggest (the model file's
  // recompute_lists): the layout search (stepsim plan) tries each beside none, selective and full.
  struct RecomputeList {
    std::string name;
    std::vector<std::string> ops;
    std::vector<engine::SourceLoc> where{};  // of each op, for the check of its name
  };
  std::vector<RecomputeList> recompute_lists;
  // What a Hugging Face config.json sets that this model leaves out, one entry each with its value
  // and what is simulated instead ("sliding_window: 4096 (every layer attends to the whole
  // sequence)"); `check` lists them and `run` warns.
  std::vector<std::string> not_modelled;

  // The precision its authors trained it with (the model file's training_precision, with its
  // source): what a scenario that names no precision, and stepsim plan, use. Unset: BF16 mixed
  // precision (PrecisionPolicy's defaults).
  std::optional<PrecisionPolicy> training_precision;
  std::string training_precision_source;

  bool is_moe_layer(int layer) const {
    return moe.enabled && layer >= moe.first_dense_layers &&
           (layer - moe.first_dense_layers) % moe.every == 0;
  }
};

}  // namespace stepsim::spec
