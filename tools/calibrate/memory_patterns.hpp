// The memory-bound kernels stepsim-calibrate times, one per access pattern (memory_patterns.cu).
#pragma once

#include <cstddef>
#include <functional>

namespace stepsim_calibrate {

// Runs a kernel launch for a warm-up span and as long again timed; returns seconds per run.
using TimeFn = std::function<double(const std::function<void()>&, double)>;

// Prints a CSV `memory` row per access pattern and size (bytes, time_us, pattern columns).
void time_memory_patterns(const TimeFn& sustained, double seconds, std::size_t l2_bytes, int sms);

}  // namespace stepsim_calibrate
