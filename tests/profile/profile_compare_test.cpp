#include "sim/profile/profile_compare.hpp"

#include <doctest/doctest.h>

using namespace stepsim;

namespace {

profile::RankSummary summary(double gemm, double nccl, double memcpy) {
  profile::RankSummary s;
  s.classes.push_back({{"gemm", "fprop"}, gemm, 4});
  s.classes.push_back({{"communication", "all_gather"}, nccl, 2});
  if (memcpy > 0.0) s.classes.push_back({{"memcpy", ""}, memcpy, 1});
  s.layer_s = {{0, gemm / 2}, {1, gemm / 2}};
  s.kernel_s = {{"gemm_a", {gemm, 4}}, {"nccl_b", {nccl, 2}}};
  return s;
}

}  // namespace

TEST_CASE("Compare: per class, layer and kernel, measured over simulated; unmodelled listed") {
  const profile::Comparison c = profile::compare(summary(3.0, 1.0, 0.5), summary(2.0, 1.0, 0.0));
  REQUIRE(c.classes.size() == 3);
  CHECK(c.classes[0].label == "gemm fprop");
  CHECK(c.classes[0].ratio() == doctest::Approx(1.5));
  CHECK(c.classes[1].ratio() == doctest::Approx(1.0));
  CHECK(c.classes[2].label == "memcpy");  // the profile's, with nothing simulated
  CHECK(c.classes[2].simulated_s == 0.0);
  CHECK(c.classes[2].ratio() == 0.0);
  REQUIRE(c.layers.size() == 2);
  CHECK(c.layers[1].label == "L1");
  CHECK(c.layers[1].ratio() == doctest::Approx(1.5));
  // Only kernels whose times differ, the largest difference first.
  REQUIRE(c.kernels.size() == 1);
  CHECK(c.kernels[0].label == "gemm_a");
  CHECK(profile::compare(summary(1, 1, 0), summary(1, 1, 0)).kernels.empty());
}
