#include "sim/spec/device.hpp"

#include <doctest/doctest.h>

using namespace stepsim::spec;

TEST_CASE("A device's rate per precision; asking for one it lacks is a defect") {
  DeviceSpec d;
  d.name = "test";
  d.rates[static_cast<int>(Precision::bf16)] = ComputeRate{989e12, 758e12};
  CHECK(d.supports(Precision::bf16));
  CHECK_FALSE(d.supports(Precision::fp8));
  CHECK(d.rate(Precision::bf16).achievable_flops == 758e12);
}

TEST_CASE("Precision names and sizes") {
  CHECK(bytes_per_element(Precision::fp8) == 1.0);
  CHECK(bytes_per_element(Precision::bf16) == 2.0);
  CHECK(bytes_per_element(Precision::fp32) == 4.0);
  CHECK(parse_precision("bf16") == Precision::bf16);
  CHECK_FALSE(parse_precision("int4").has_value());
}
