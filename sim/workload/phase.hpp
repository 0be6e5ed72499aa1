// The part of a training step a piece of work belongs to: a micro-batch's forward, its backward
// (the input gradient), the backward with its weight gradient in one pass (schedules that do not
// split them), the weight gradient alone (zero-bubble schedules), or the step's end (gradient
// reduction, optimizer, parameter gather). Each has a letter, used in op names ("F mb12 L4 attn"),
// traces and kernel listings: F, B, X, W, O.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepsim::workload {

enum class Phase : std::uint8_t { forward, backward, backward_weight, weight, step_end };

constexpr char letter(Phase p) {
  return std::string_view("FBXWO")[static_cast<int>(p)];
}

// Whether it computes an input gradient (B or X).
constexpr bool is_backward(Phase p) {
  return p == Phase::backward || p == Phase::backward_weight;
}

}  // namespace stepsim::workload
