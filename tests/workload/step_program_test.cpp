#include "sim/workload/step_program.hpp"

#include <doctest/doctest.h>

#include "sim/workload/memory.hpp"
#include "sim/workload/model_cost.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using namespace stepsim::workload;
using namespace stepsim::spec;

namespace {

ScenarioSpec pipeline(const char* schedule, int zero) {
  ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.pp = 4;
  s.parallel.dp = 2;
  s.parallel.zero = zero;
  s.parallel.schedule = workload::schedule_named(schedule);
  return s;
}

double chain_flops(const Chain& c) {
  double f = 0.0;
  for (const Work& w : c)
    for (const hw::Kernel& k : w.kernels) f += k.flops;
  return f;
}

}  // namespace

TEST_CASE(
    "1F1B's program: every micro-batch's forward and backward of a rank's stage, sends both "
    "ways, and the model's training FLOPs") {
  const ScenarioSpec s = pipeline("1f1b", 1);
  const ParallelPlan plan = make_plan(s);
  const ModelCost cost(s.model, s.training);
  const StepProgram p = build_program(s, plan, cost);
  const int m = static_cast<int>(plan.micro_batches);
  REQUIRE(m == 32);
  CHECK(p.chains.size() == 8);  // forward and fused backward of 4 stages, each held once
  double flops = 0.0;
  for (int r = 0; r < 4; ++r) {
    CAPTURE(r);
    int forwards = 0, backwards = 0;
    for (const Instruction& in : p.ranks[r]) {
      REQUIRE(in.chunks.size() == 1);
      const Chunk& c = in.chunks.front();
      CHECK(c.task.stage == r);
      flops += chain_flops(p.chains[c.chain]);
      if (c.phase == Phase::forward) {
        ++forwards;
        CHECK(c.send_to == (r == 3 ? -1 : r + 1));
      } else {
        REQUIRE(c.phase == Phase::backward_weight);
        ++backwards;
        CHECK(c.send_to == (r == 0 ? -1 : r - 1));
      }
    }
    CHECK(forwards == m);
    CHECK(backwards == m);
    // ZeRO-1's tail: the stage's gradients reduced after its backward, the optimizer after
    // everything, the updated parameters gathered after it.
    REQUIRE(p.tail[r].size() == 3);
    CHECK(p.tail[r][0].work.kind == StepOpKind::dp_grads);
    CHECK(p.tail[r][0].after == TailWork::After::stage_backward);
    CHECK(p.tail[r][0].stage == r);
    CHECK(p.tail[r][1].work.kind == StepOpKind::optimizer);
    CHECK(p.tail[r][2].work.kind == StepOpKind::dp_params);
    CHECK(p.tail[r][2].after == TailWork::After::optimizer);
  }
  // Every replica runs the same program: the step's training FLOPs (no recomputation) are the
  // model's per token times the step's tokens.
  const double tokens = static_cast<double>(s.training.global_batch) * s.training.seq_len;
  CHECK(flops * plan.dp == doctest::Approx(cost.flops_per_token() * tokens).epsilon(1e-9));
  CHECK(p.send_bytes == doctest::Approx(s.training.seq_len * s.model.hidden * 2.0));
}

TEST_CASE("Split and dual schedules: W chunks send nothing, every chunk runs where its stage is") {
  for (const char* schedule : {"zb1p", "dualpipe", "dualpipev"}) {
    CAPTURE(schedule);
    const ScenarioSpec s = pipeline(schedule, 1);
    const ParallelPlan plan = make_plan(s);
    const ModelCost cost(s.model, s.training);
    const StepProgram p = build_program(s, plan, cost);
    const int stages = p.pipeline.stages;
    int weights = 0;
    for (int r = 0; r < 4; ++r)
      for (const Instruction& in : p.ranks[r])
        for (const Chunk& c : in.chunks) {
          CHECK(p.pipeline.device_of(c.task.stage, c.task.mb) == r);
          if (c.phase == Phase::weight) {
            ++weights;
            CHECK(c.send_to == -1);
            continue;
          }
          const int to_stage = c.phase == Phase::forward ? c.task.stage + 1 : c.task.stage - 1;
          const int to =
              to_stage < 0 || to_stage >= stages ? -1 : p.pipeline.device_of(to_stage, c.task.mb);
          CHECK(c.send_to == (to == r ? -1 : to));
        }
    CHECK(weights > 0);
  }
}
