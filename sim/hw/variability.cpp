#include "sim/hw/variability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace stepsim::hw {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform draw in (0, 1) from 53 bits.
double uniform(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0;
}

}  // namespace

double gpu_variability(const spec::VariabilitySpec& v, int gpu) {
  if (v.gpu_spread <= 0.0) return 1.0;
  const std::uint64_t a = splitmix64(v.seed ^ splitmix64(static_cast<std::uint64_t>(gpu) * 2 + 1));
  const std::uint64_t b = splitmix64(a);
  const double z =
      std::sqrt(-2.0 * std::log(uniform(a))) * std::cos(6.283185307179586 * uniform(b));
  return std::max(0.5, 1.0 + v.gpu_spread * z);
}

}  // namespace stepsim::hw
