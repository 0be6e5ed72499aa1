// Numeric precisions of tensors and of the arithmetic units that process them.
#pragma once

#include <optional>
#include <string_view>

#include "sim/spec/names.hpp"

namespace stepsim::spec {

enum class Precision { fp8, bf16, fp16, fp32 };
inline constexpr int kPrecisionCount = 4;
inline constexpr Names<Precision, kPrecisionCount> kPrecisions{
    {{"fp8"}, {"bf16"}, {"fp16"}, {"fp32"}}};

constexpr double bytes_per_element(Precision p) {
  constexpr double kBytes[] = {1.0, 2.0, 2.0, 4.0};
  return kBytes[static_cast<int>(p)];
}

constexpr std::string_view to_string(Precision p) {
  return kPrecisions.word(p);
}

std::optional<Precision> parse_precision(std::string_view s);

}  // namespace stepsim::spec
