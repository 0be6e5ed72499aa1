#include "sim/analysis/kernel_classes.hpp"

#include <doctest/doctest.h>
#include <algorithm>

#include "sim/analysis/roofline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("Kernel classes add up to the roofline's FLOPs and HBM bytes of each rank") {
  auto spec = test::small_scenario(1, 8);
  spec.parallel.pp = 2;
  spec.parallel.tp = 4;
  spec.parallel.schedule = workload::schedule_named("1f1b");
  spec.training.global_batch = 8;
  spec.training.recompute = {spec::RecomputeMode::ops, {"swiglu"}};
  const workload::StepProgram program = test::program_of(spec);
  const auto r = analysis::roofline(program, spec.cluster);
  const hw::TableKernelModel kernels(spec.cluster.device);
  for (int d = 0; d < 2; ++d) {
    const auto classes = analysis::kernel_classes(program, kernels, d);
    double flops = 0.0, seconds = 0.0;
    std::vector<std::string> names;
    for (const auto& c : classes) {
      flops += c.flops;
      seconds += c.seconds;
      names.push_back(c.name);
      CHECK(c.kernels > 0.0);
    }
    CHECK(flops == doctest::Approx(r.per_rank[d].flops).epsilon(1e-12));
    if (d == r.device) CHECK(seconds >= r.compute_s * 0.999);  // gaps and memory bounds add
    for (std::size_t i = 1; i < classes.size(); ++i)
      CHECK(classes[i - 1].seconds >= classes[i].seconds);
    CHECK(std::find(names.begin(), names.end(), "GEMM bf16") != names.end());
    CHECK(std::find(names.begin(), names.end(), "attention fwd bf16") != names.end());
    CHECK(std::find(names.begin(), names.end(), "attention bwd bf16") != names.end());
    CHECK(std::find(names.begin(), names.end(), "memory-bound") != names.end());
  }
  const auto classes = analysis::kernel_classes(program, kernels, r.device);
  double bytes = 0.0;
  for (const auto& c : classes) bytes += c.bytes;
  CHECK(bytes == doctest::Approx(r.hbm_bytes).epsilon(1e-9));
}
