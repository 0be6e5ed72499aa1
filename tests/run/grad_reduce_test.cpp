// When data-parallel gradients are reduced (spec::GradReduce): after the whole backward, as
// Megatron-LM's local DDP of 2021, the reduction adds exactly its own time to the step; bucket by
// bucket, part of it hides under the backward.
#include <doctest/doctest.h>

#include "sim/analysis/step_metrics.hpp"
#include "sim/run/whatif.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

struct Reduction {
  double step_s = 0.0, without_communication_s = 0.0;
  double reduce_s = 0.0;  // Σ the gradient reductions' own times (one device: they run in turn)
  double bytes = 0.0;
  int ops = 0;
};

run::Simulation simulate(const spec::ScenarioSpec& s, const exec::Idealisation& ideal) {
  const run::Bounded b{run::prepare(s), {}};
  return run::simulate(b, std::make_shared<const hw::Topology>(s.cluster), nullptr, ideal);
}

Reduction measure(spec::GradReduce mode) {
  spec::ScenarioSpec s = test::small_scenario(1, 8);  // data parallelism 8 on one node
  s.parallel.zero = 0;
  s.software.grad_reduce = mode;
  const run::Simulation full = simulate(s, {});
  Reduction r;
  r.step_s = analysis::step_metrics(full.build.graph, full.timeline).step_s;
  const run::Simulation free = simulate(s, {.free_communication = true});
  r.without_communication_s = analysis::step_metrics(free.build.graph, free.timeline).step_s;
  const auto& g = full.build.graph;
  for (std::size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].kind == workload::StepOpKind::dp_grads && g.ops[i].device == 0) {
      r.reduce_s += g.ops[i].duration.seconds();
      r.bytes += g.facts[i].bytes;
      ++r.ops;
    }
  return r;
}

}  // namespace

TEST_CASE("A reduction after the whole backward adds exactly its collective time to the step") {
  const Reduction after = measure(spec::GradReduce::after_backward);
  CHECK(after.ops == 1);  // one model chunk: one all-reduce of its whole gradient buffer
  CHECK(after.reduce_s > 0.0);
  CHECK(after.step_s - after.without_communication_s ==
        doctest::Approx(after.reduce_s).epsilon(1e-9));
}

TEST_CASE("Buckets reduce the same bytes, and part of their time hides under the backward") {
  const Reduction after = measure(spec::GradReduce::after_backward);
  const Reduction buckets = measure(spec::GradReduce::buckets);
  CHECK(buckets.ops > 1);
  CHECK(buckets.bytes == doctest::Approx(after.bytes));
  CHECK(buckets.without_communication_s == doctest::Approx(after.without_communication_s));
  CHECK(buckets.step_s - buckets.without_communication_s < buckets.reduce_s);
  CHECK(buckets.step_s < after.step_s);
}
