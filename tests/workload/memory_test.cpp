#include "sim/workload/memory.hpp"

#include <doctest/doctest.h>

#include "sim/workload/schedule/schedule.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim::workload;
using namespace stepsim::spec;

TEST_CASE("ZeRO stages 0-3 shard optimizer state, then gradients, then parameters") {
  ScenarioSpec s =
      stepsim::test::small_scenario(1, 8);  // dp 8, bf16 params, fp32 grads/master/moments
  const ModelCost cost(s.model, s.training);
  const double P = cost.params_total();
  double largest_layer = 0.0;
  for (const auto& l : cost.layers()) largest_layer = std::max(largest_layer, l.params());
  largest_layer = std::max(largest_layer, cost.head().params());
  largest_layer = std::max(largest_layer, cost.embedding().params());

  s.parallel.zero = 0;
  MemoryBreakdown m = memory_per_gpu(s, make_plan(s), cost);
  CHECK(m.params == doctest::Approx(2.0 * P));
  CHECK(m.grads == doctest::Approx(4.0 * P));
  CHECK(m.optimizer == doctest::Approx(12.0 * P));  // fp32 master + 2 fp32 moments
  CHECK(m.buffers == 0.0);

  s.parallel.zero = 1;
  m = memory_per_gpu(s, make_plan(s), cost);
  CHECK(m.grads == doctest::Approx(4.0 * P));
  CHECK(m.optimizer == doctest::Approx(12.0 * P / 8));

  s.parallel.zero = 2;
  m = memory_per_gpu(s, make_plan(s), cost);
  CHECK(m.params == doctest::Approx(2.0 * P));
  CHECK(m.grads == doctest::Approx(4.0 * P / 8));

  s.parallel.zero = 3;
  s.parallel.zero3.prefetch = 1;
  m = memory_per_gpu(s, make_plan(s), cost);
  CHECK(m.params == doctest::Approx(2.0 * P / 8));
  CHECK(m.buffers == doctest::Approx(largest_layer * (2 * 2.0 + 4.0)));
}

TEST_CASE("No master copy when parameters are already fp32; BF16 moments halve the state") {
  ScenarioSpec s = stepsim::test::small_scenario(1, 8);
  s.training.precision.params = Precision::fp32;
  s.training.precision.optimizer = Precision::bf16;
  const ModelCost cost(s.model, s.training);
  const MemoryBreakdown m = memory_per_gpu(s, make_plan(s), cost);
  CHECK(m.optimizer == doctest::Approx(4.0 * cost.params_total()));
}

TEST_CASE("Activations: one micro-batch of every layer without a pipeline") {
  ScenarioSpec s = stepsim::test::small_scenario(1, 8);
  const ModelCost cost(s.model, s.training);
  double per_token = cost.head().input_bytes;
  for (const auto& l : cost.layers())
    per_token += cost.recompute(l, s.training.recompute).saved_bytes;
  const MemoryBreakdown m = memory_per_gpu(s, make_plan(s), cost);
  CHECK(m.activations == doctest::Approx(per_token * 1024));
}

TEST_CASE("DualPipe holds two stages' parameters per device") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("1f1b");
  const ModelCost cost(s.model, s.training);
  const double one = held_params(make_plan(s), cost, 1).dense;
  s.parallel.schedule = schedule_named("dualpipe");
  s.training.global_batch = 64;
  const double two = held_params(make_plan(s), cost, 1).dense;
  CHECK(two == doctest::Approx(2.0 * one));  // stages 1 and 2 are both plain layers
}
