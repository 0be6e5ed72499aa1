// The roofline is a fold over the step program: it counts what the program's kernels move.
#include <doctest/doctest.h>

#include "sim/analysis/roofline.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/model_cost.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using workload::ParallelPlan;
using workload::ScenarioSpec;

namespace {

ScenarioSpec pipeline(const char* schedule) {
  ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.pp = 4;
  s.parallel.dp = 2;
  s.parallel.zero = 1;
  s.parallel.schedule = workload::Schedule::named(schedule);
  return s;
}

}  // namespace

TEST_CASE("The roofline folds the program: a split weight gradient reads its weights once more") {
  // ZB1P runs each op with weights as a W kernel of its own, which reads the GPU's share of its
  // weights again, once per micro-batch; the fused backward of 1F1B does not.
  const ScenarioSpec fused = pipeline("1f1b"), split = pipeline("zb1p");
  const analysis::Roofline a = analysis::roofline(fused), b = analysis::roofline(split);
  const ParallelPlan plan = workload::make_plan(fused);
  const workload::ModelCost cost(fused.model, fused.training);
  double weights = 0.0;  // bytes of the bound's stage's ops with weights on one GPU
  for (int li : workload::stage_layer_indices(plan, a.device))
    for (const workload::OpCost& op : workload::layer_of(cost, li).ops)
      if (op.w_flops > 0.0)
        weights += workload::op_local_params(op, plan.tp, plan.ep) * 2.0;  // bf16
  REQUIRE(a.device == b.device);
  CHECK(b.hbm_bytes - a.hbm_bytes ==
        doctest::Approx(static_cast<double>(plan.micro_batches) * weights).epsilon(1e-9));
  CHECK(b.hbm_bytes > a.hbm_bytes);
  CHECK(b.flops_per_gpu == doctest::Approx(a.flops_per_gpu).epsilon(1e-12));
}
