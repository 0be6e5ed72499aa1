#include "sim/hw/variability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>

#include "sim/engine/splitmix.hpp"

namespace stepsim::hw {

namespace {

// A uniform draw in (0, 1) from 53 bits.
double uniform(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0;
}

}  // namespace

double gpu_variability(const spec::VariabilitySpec& v, int gpu) {
  if (v.gpu_spread <= 0.0) return 1.0;
  const std::uint64_t a =
      engine::splitmix64(v.seed ^ engine::splitmix64(static_cast<std::uint64_t>(gpu) * 2 + 1));
  const std::uint64_t b = engine::splitmix64(a);
  const double z =
      std::sqrt(-2.0 * std::log(uniform(a))) * std::cos(6.283185307179586 * uniform(b));
  return std::max(0.5, 1.0 + v.gpu_spread * z);
}

double expected_max_normal(int n) {
  if (n <= 1) return 0.0;
  static std::mutex lock;
  static std::map<int, double> cache;
  const std::lock_guard<std::mutex> hold(lock);
  if (auto it = cache.find(n); it != cache.end()) return it->second;
  // ∫ x·n·φ(x)·Φ(x)^(n-1) dx by Simpson's rule over [-10, 12]: the integrand is below 1e-20
  // outside it for n up to 10^7.
  constexpr int kSteps = 22000;
  constexpr double lo = -10.0, hi = 12.0, h = (hi - lo) / kSteps;
  double sum = 0.0;
  for (int i = 0; i <= kSteps; ++i) {
    const double x = lo + i * h;
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.141592653589793);
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    const double f = x * n * phi * std::pow(cdf, n - 1);
    sum += f * (i == 0 || i == kSteps ? 1.0 : i % 2 ? 4.0 : 2.0);
  }
  return cache[n] = sum * h / 3.0;
}

}  // namespace stepsim::hw
