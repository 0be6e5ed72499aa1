#include "sim/hw/device_spec.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/check.hpp"

namespace stepsim::hw {

const ComputeRate& DeviceSpec::rate(Precision p) const {
  const auto& r = rates[static_cast<int>(p)];
  STEPSIM_CHECK(r.has_value(), "device " + name + " has no rate for " + std::string(to_string(p)));
  return *r;
}

double DeviceSpec::kernel_seconds(double flops, Precision p, double efficiency, double hbm_bytes,
                                  double sm_share) const {
  const double math =
      flops > 0.0 ? flops / (rate(p).achievable_flops * efficiency * sm_share) : 0.0;
  const double memory = hbm_bytes > 0.0 ? hbm_bytes / hbm_bandwidth : 0.0;
  return std::max(math, memory) + launch_overhead_s;
}

double DeviceSpec::gemm_efficiency_for(double n, double k) const {
  if (gemm_efficiency.empty()) return 1.0;
  const double d = std::min(n, k);
  if (d <= gemm_efficiency.front().min_dim) return gemm_efficiency.front().efficiency;
  if (d >= gemm_efficiency.back().min_dim) return gemm_efficiency.back().efficiency;
  for (std::size_t i = 1; i < gemm_efficiency.size(); ++i) {
    const auto& hi = gemm_efficiency[i];
    if (d > hi.min_dim) continue;
    const auto& lo = gemm_efficiency[i - 1];
    const double t =
        (std::log2(d) - std::log2(lo.min_dim)) / (std::log2(hi.min_dim) - std::log2(lo.min_dim));
    return lo.efficiency + t * (hi.efficiency - lo.efficiency);
  }
  return gemm_efficiency.back().efficiency;
}

}  // namespace stepsim::hw
