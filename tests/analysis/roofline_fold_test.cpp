// The roofline is a fold over the step program: it counts what the program's kernels move.
#include <doctest/doctest.h>

#include "sim/analysis/roofline.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/model_cost.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using spec::ScenarioSpec;
using workload::ParallelPlan;

namespace {

ScenarioSpec pipeline(const char* schedule) {
  ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.pp = 4;
  s.parallel.dp = 2;
  s.parallel.zero = 1;
  s.parallel.schedule = workload::schedule_named(schedule);
  return s;
}

}  // namespace

TEST_CASE(
    "The roofline folds the program: split or fused, the weight gradient moves the same bytes") {
  // ZB1P runs each op's weight gradient as a W kernel of its own; 1F1B fuses it into backward.
  // Either way dgrad reads the weights and wgrad reads the inputs and accumulates the gradient:
  // the same FLOPs and bytes, in more kernels.
  const ScenarioSpec fused = pipeline("1f1b"), split = pipeline("zb1p");
  const analysis::Roofline a = analysis::roofline(test::program_of(fused), fused.cluster);
  const analysis::Roofline b = analysis::roofline(test::program_of(split), split.cluster);
  REQUIRE(a.device == b.device);
  CHECK(b.hbm_bytes == doctest::Approx(a.hbm_bytes).epsilon(1e-12));
  CHECK(b.flops_per_gpu == doctest::Approx(a.flops_per_gpu).epsilon(1e-12));
}
