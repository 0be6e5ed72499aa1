#include "sim/hw/kernel_model.hpp"

#include <doctest/doctest.h>

using namespace stepsim::hw;

namespace {

// 800 of 1000 TFLOP/s achievable in BF16, 3 TB/s of HBM, 3 us per launch, GEMMs at 0.5 of the
// achievable rate up to min(N, K) = 512 and 0.9 from 4096.
DeviceSpec device() {
  DeviceSpec d;
  d.sms = 132;
  d.hbm_bandwidth = 3e12;
  d.launch_overhead_s = 3e-6;
  d.rates[static_cast<int>(Precision::bf16)] = ComputeRate{1000e12, 800e12};
  d.gemm_efficiency = {{512, 0.5}, {4096, 0.9}};
  return d;
}

}  // namespace

TEST_CASE("The roofline kernel model: the slower of math and memory, plus the launch") {
  const DeviceSpec d = device();
  const RooflineKernelModel m(d);
  // A GEMM with min(N, K) = 4096 runs at 0.9 of the achievable rate, on the SMs left to it.
  Kernel g{KernelClass::gemm, Precision::bf16, 1e12, 1e6, 8192, 4096};
  CHECK(m.seconds(g, 1.0) == doctest::Approx(1e12 / (800e12 * 0.9) + 3e-6));
  CHECK(m.seconds(g, 0.5) == doctest::Approx(1e12 / (800e12 * 0.9 * 0.5) + 3e-6));
  // A narrow GEMM: the table's lower end.
  g.k = 256;
  CHECK(m.seconds(g, 1.0) == doctest::Approx(1e12 / (800e12 * 0.5) + 3e-6));
  // Attention is not a GEMM of the table: the achievable rate itself.
  const Kernel a{KernelClass::attention, Precision::bf16, 1e12, 1e6, 0, 0};
  CHECK(m.seconds(a, 1.0) == doctest::Approx(1e12 / 800e12 + 3e-6));
  // A memory-bound kernel: bytes at the HBM bandwidth.
  const Kernel e{KernelClass::elementwise, Precision::bf16, 0.0, 3e9, 0, 0};
  CHECK(m.seconds(e, 1.0) == doctest::Approx(1e-3 + 3e-6));
}

TEST_CASE("The roofline kernel model's arithmetic alone: no memory, no launch, all SMs") {
  const DeviceSpec d = device();
  const RooflineKernelModel m(d);
  const Kernel g{KernelClass::gemm, Precision::bf16, 1e12, 1e15, 8192, 4096};
  CHECK(m.math_seconds(g) == doctest::Approx(1e12 / (800e12 * 0.9)));
  CHECK(m.seconds(g, 1.0) > 300.0);  // its bytes bind the kernel, not the bound's compute term
  const Kernel e{KernelClass::elementwise, Precision::bf16, 0.0, 3e9, 0, 0};
  CHECK(m.math_seconds(e) == 0.0);
}
