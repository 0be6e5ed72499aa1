// Data-parallel gradient buckets (workload/step_program.hpp, build_tail): on pipeline rank 0 each
// bucket's reduction waits only for the last backward of its own layers, so the first starts while
// the rank's backward still runs; later ranks reduce each stage in one bucket, after its backward.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/step_program.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using workload::Phase;
using workload::StepOpKind;

namespace {

struct RankZero {
  double first_reduction = 1e300, last_backward = 0.0;
  int buckets = 0;
};

// Rank 0's buckets (coupled over its symmetry classes: each starts once the slowest class has its
// layers' gradients) and the last backward of any of its classes.
RankZero rank_zero(const run::Result& s) {
  const auto& g = s.build.graph;
  RankZero out;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto& op = g.ops[i];
    if (op.device / g.classes != 0) continue;
    if (op.kind == StepOpKind::dp_grads && op.device % g.classes == 0) {
      ++out.buckets;
      out.first_reduction = std::min(out.first_reduction, s.timeline.start[i].seconds());
    }
    if (op.kind == StepOpKind::kernel && op.phase != Phase::forward && op.phase != Phase::step_end)
      out.last_backward = std::max(out.last_backward, s.timeline.end[i].seconds());
  }
  return out;
}

}  // namespace

TEST_CASE(
    "Bucketed gradient reduction starts before the last backward in every pipeline scenario") {
  for (const char* name :
       {"deepseek-v3-dualpipe", "deepseek-v3-dualpipev", "deepseek-v3-1f1b", "llama3-405b-1f1b"}) {
    if (!test::shipped_scenario_runs_here(name)) continue;
    CAPTURE(name);
    const auto spec =
        config::load_scenario(test::source_path(std::string("scenarios/") + name + ".yaml"));
    const auto s = run::simulate_step(spec);
    const RankZero r = rank_zero(s);
    MESSAGE(std::string(name) << ": " << r.buckets << " buckets on rank 0, the first at "
                              << r.first_reduction << " s, its last backward ends at "
                              << r.last_backward << " s");
    CHECK(r.buckets > 1);
    CHECK(r.first_reduction < r.last_backward);
  }
}

TEST_CASE(
    "Megatron-LM 2021 (the GPT-3 scenario's preset): each chunk's gradients after the whole "
    "backward") {
  if (!test::shipped_scenario_runs_here("gpt3-175b-a100")) return;
  const auto spec = config::load_scenario(test::source_path("scenarios/gpt3-175b-a100.yaml"));
  REQUIRE(spec.software.grad_reduce == spec::GradReduce::after_backward);
  const RankZero r = rank_zero(run::simulate_step(spec));
  CHECK(r.buckets == spec.parallel.virtual_stages);  // one all-reduce per model chunk
  CHECK(r.first_reduction >= r.last_backward);
}

TEST_CASE("Buckets: Megatron-Core's size on rank 0, one per stage elsewhere; same bytes in all") {
  const auto spec = config::load_scenario(test::source_path("scenarios/llama3-405b-1f1b.yaml"));
  const auto plan = workload::make_plan(spec);
  const workload::ModelCost cost(spec.model, spec.training);
  auto total = [&](const std::vector<workload::GradBucket>& bs) {
    double p = 0.0;
    for (const auto& b : bs) p += b.params.dense + b.params.routed;
    return p;
  };
  const double limit = std::max(40e6, 1e6 * plan.dp);
  const auto buckets = workload::grad_buckets(plan, cost, 0, limit);
  const auto one = workload::grad_buckets(plan, cost, 0, 0.0);
  REQUIRE(one.size() == 1);
  CHECK(buckets.size() > 1);
  CHECK(total(buckets) == doctest::Approx(total(one)));
  // The last layer's bucket comes first (backward order); every bucket but the last reached the
  // limit, and lost it with its last layer.
  CHECK(buckets.front().layers.front() == one.front().layers.front());
  for (std::size_t i = 0; i + 1 < buckets.size(); ++i)
    CHECK(buckets[i].params.dense + buckets[i].params.routed >= limit);
  // On a later pipeline rank the tail has one reduction per stage.
  const auto tail = workload::build_tail(spec, plan, cost, 1);
  CHECK(std::count_if(tail.begin(), tail.end(), [](const workload::TailWork& t) {
          return t.work.kind == StepOpKind::dp_grads;
        }) == static_cast<long>(plan.device_stages[1].size()));
}
