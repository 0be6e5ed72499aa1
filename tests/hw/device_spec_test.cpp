#include "sim/hw/device_spec.hpp"

#include <doctest/doctest.h>

using namespace stepsim::hw;

TEST_CASE("GEMM efficiency interpolates in log2 of min(N, K) and clamps") {
  DeviceSpec d;
  d.gemm_efficiency = {{512, 0.4}, {2048, 0.7}, {8192, 0.9}};
  CHECK(d.gemm_efficiency_for(100, 100000) == doctest::Approx(0.4));
  CHECK(d.gemm_efficiency_for(512, 7168) == doctest::Approx(0.4));
  CHECK(d.gemm_efficiency_for(1024, 7168) == doctest::Approx(0.55));  // halfway in log2
  CHECK(d.gemm_efficiency_for(7168, 2048) == doctest::Approx(0.7));
  CHECK(d.gemm_efficiency_for(4096, 4096) == doctest::Approx(0.8));
  CHECK(d.gemm_efficiency_for(16384, 16384) == doctest::Approx(0.9));
}

TEST_CASE("No efficiency table means full achievable rate") {
  DeviceSpec d;
  CHECK(d.gemm_efficiency_for(64, 64) == 1.0);
}

TEST_CASE("Precision names and sizes") {
  CHECK(bytes_per_element(Precision::fp8) == 1.0);
  CHECK(bytes_per_element(Precision::bf16) == 2.0);
  CHECK(bytes_per_element(Precision::fp32) == 4.0);
  CHECK(parse_precision("bf16") == Precision::bf16);
  CHECK_FALSE(parse_precision("int4").has_value());
}
