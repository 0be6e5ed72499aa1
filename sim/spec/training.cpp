#include "sim/spec/training.hpp"

#include <cstdio>

namespace stepsim::spec {

std::string attention_words(const TrainingSpec& t) {
  std::string out(kAttentionKernels.word(t.attention_kernel));
  if (t.attention_dropout > 0.0 && !fused(t.attention_kernel)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", t.attention_dropout);
    out += std::string(", dropout ") + buf;
  }
  return out;
}

std::string_view recompute_word(RecomputeMode m) {
  switch (m) {
    case RecomputeMode::none:
      return "none";
    case RecomputeMode::full:
      return "full";
    case RecomputeMode::selective:
      return "selective";
    case RecomputeMode::ops:
      return "ops";
  }
  return "none";
}

std::vector<std::pair<std::string, Precision>> precision_fields(const PrecisionPolicy& p) {
  return {{"gemm", p.gemm},
          {"attention", p.attention},
          {"head", p.head},
          {"router", p.router},
          {"activations", p.activations},
          {"mlp_act_input", p.mlp_act_input.value_or(p.activations)},
          {"dispatch", p.dispatch},
          {"combine", p.combine},
          {"params", p.params},
          {"grads", p.grads},
          {"master", p.master},
          {"optimizer", p.optimizer}};
}

std::string describe(const PrecisionPolicy& p) {
  std::string out;
  for (const auto& [name, prec] : precision_fields(p))
    out += (out.empty() ? "" : ", ") + std::string(name) + " " + std::string(to_string(prec));
  return out;
}

}  // namespace stepsim::spec
