// Synchronisation (analysis/step_metrics.hpp): GPUs that exchange every layer run at their slowest
// member's pace; the faster ones wait that difference, reported apart from compute.
#include <doctest/doctest.h>

#include "sim/run/step_simulation.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("One GPU 10 % slow in a tensor-parallel group: the group waits for it, by hand") {
  // One node of 8 GPUs, tensor parallelism 8: one group, an all-reduce every layer. With
  // communication free, the step is its compute: 1.1 x as long with GPU 3 at 1.1. The other
  // seven compute 1/1.1 of it and wait the rest: the mean synchronisation is 7/8 (1 - 1/1.1) T.
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.tp = 8;
  s.fidelity = spec::NetworkFidelity::free;
  const auto base = run::simulate_step(s);
  spec::FaultSpec slow;
  slow.kind = spec::FaultKind::straggler;
  slow.gpu = 3;
  slow.factor = 1.1;
  s.cluster.faults.push_back(slow);
  const auto late = run::simulate_step(s);
  const double t = late.metrics.step_s;
  CHECK(t == doctest::Approx(base.metrics.step_s * 1.1).epsilon(1e-6));
  CHECK(late.metrics.mean.synchronisation == doctest::Approx(7.0 / 8.0 * (1.0 - 1.0 / 1.1) * t));
  CHECK(base.metrics.mean.synchronisation == 0.0);
  const auto& m = late.metrics.mean;
  CHECK(m.compute + m.synchronisation + m.exposed_comm + m.bubble + m.other_idle ==
        doctest::Approx(t));
}
