// One accelerator: its arithmetic rates per precision, memory, and GEMM efficiency by shape.
//
// Rates come in two flavours, kept side by side because the difference is the point of a
// roofline done honestly: `peak` is the datasheet figure, `achievable` a measured GEMM rate at a
// large, well-shaped problem. Smaller or skinnier GEMMs reach less; `gemm_efficiency` gives the
// fraction of the achievable rate as a function of the GEMM's smaller output/reduction dimension
// d = min(N, K) (M, the token count, is assumed large: thousands). Between table points the
// fraction is interpolated linearly in log2(d) and clamped at the ends:
//     time(GEMM) = 2·M·N·K / (achievable(precision) · efficiency(min(N, K)))
// Not modelled: clock throttling under power capping, M-dependence, tile quantisation.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/hw/precision.hpp"

namespace stepsim::hw {

struct ComputeRate {
  double peak_flops = 0.0;        // flop/s, datasheet (dense)
  double achievable_flops = 0.0;  // flop/s, measured GEMM
};

struct EfficiencyPoint {
  double min_dim = 0.0;     // min(N, K) of the GEMM
  double efficiency = 1.0;  // fraction of the achievable rate
};

struct DeviceSpec {
  std::string name;
  int sms = 0;
  double memory_bytes = 0.0;       // usable HBM capacity
  double hbm_bandwidth = 0.0;      // bytes/s
  double launch_overhead_s = 0.0;  // per kernel
  std::array<std::optional<ComputeRate>, kPrecisionCount> rates;
  std::vector<EfficiencyPoint> gemm_efficiency;  // sorted by min_dim, may be empty (= 1.0)

  bool supports(Precision p) const { return rates[static_cast<int>(p)].has_value(); }
  const ComputeRate& rate(Precision p) const;
  double gemm_efficiency_for(double n, double k) const;
  // One kernel, its own roofline: max(flops / (achievable(p) · efficiency · sm_share),
  // hbm_bytes / hbm_bandwidth) + launch overhead, in seconds.
  double kernel_seconds(double flops, Precision p, double efficiency, double hbm_bytes,
                        double sm_share) const;
};

}  // namespace stepsim::hw
