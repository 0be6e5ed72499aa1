#include "sim/spec/precision.hpp"

namespace stepsim::spec {

std::optional<Precision> parse_precision(std::string_view s) {
  for (int i = 0; i < kPrecisionCount; ++i) {
    const auto p = static_cast<Precision>(i);
    if (to_string(p) == s) return p;
  }
  return std::nullopt;
}

}  // namespace stepsim::spec
