// GPU-to-GPU variability (hw/variability.hpp): one draw per GPU from the seed, mean 1, spread σ.
#include "sim/hw/variability.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace stepsim;

TEST_CASE("Variability: one seeded draw per GPU, mean 1 and standard deviation the spread") {
  spec::VariabilitySpec v;
  CHECK(hw::gpu_variability(v, 17) == 1.0);  // off
  v.seed = 42;
  v.gpu_spread = 0.03;
  const int n = 20000;
  double sum = 0.0, sq = 0.0;
  for (int g = 0; g < n; ++g) {
    const double x = hw::gpu_variability(v, g);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  CHECK(mean == doctest::Approx(1.0).epsilon(0.002));
  CHECK(sd == doctest::Approx(0.03).epsilon(0.05));
  // A GPU's draw depends on the seed and the GPU alone.
  CHECK(hw::gpu_variability(v, 1234) == hw::gpu_variability(v, 1234));
  spec::VariabilitySpec other = v;
  other.seed = 43;
  CHECK(hw::gpu_variability(other, 1234) != hw::gpu_variability(v, 1234));
}

TEST_CASE("Expected maximum of n standard normals, against the closed forms and Harter's table") {
  CHECK(stepsim::hw::expected_max_normal(1) == 0.0);
  CHECK(stepsim::hw::expected_max_normal(2) == doctest::Approx(1.0 / std::sqrt(M_PI)));
  CHECK(stepsim::hw::expected_max_normal(3) == doctest::Approx(1.5 / std::sqrt(M_PI)));
  // Harter, Biometrika 48 (1961), Table 1.
  CHECK(stepsim::hw::expected_max_normal(5) == doctest::Approx(1.16296).epsilon(1e-5));
  CHECK(stepsim::hw::expected_max_normal(10) == doctest::Approx(1.53875).epsilon(1e-5));
  CHECK(stepsim::hw::expected_max_normal(100) == doctest::Approx(2.50759).epsilon(1e-5));
}
