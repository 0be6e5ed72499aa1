// Numeric precisions of tensors and of the arithmetic units that process them.
#pragma once

#include <optional>
#include <string_view>

namespace stepsim::spec {

enum class Precision { fp8, bf16, fp16, fp32 };
inline constexpr int kPrecisionCount = 4;

constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp8:
      return 1.0;
    case Precision::bf16:
      return 2.0;
    case Precision::fp16:
      return 2.0;
    case Precision::fp32:
      return 4.0;
  }
  return 0.0;
}

constexpr std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::fp8:
      return "fp8";
    case Precision::bf16:
      return "bf16";
    case Precision::fp16:
      return "fp16";
    case Precision::fp32:
      return "fp32";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s);

}  // namespace stepsim::spec
