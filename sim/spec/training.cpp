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

}  // namespace stepsim::spec
