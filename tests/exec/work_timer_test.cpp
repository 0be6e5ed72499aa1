// A chain's works timed on one device (exec/work_timer.hpp): a compute work is its kernels' time
// scaled by the device's slowdown, its Σ t_k² by the slowdown's square; a communication work is
// its collectives' time on the device's groups, whatever the slowdown.
#include "sim/exec/work_timer.hpp"

#include <doctest/doctest.h>

#include "sim/exec/symmetry.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("A device's slowdown scales its compute works, not its collectives") {
  const spec::ScenarioSpec s = test::pipelined_scenario();
  const workload::ParallelPlan plan = workload::make_plan(s);
  const workload::ModelCost cost(s.model, s.training);
  const workload::StepProgram program = workload::build_program(s, plan, cost);
  const hw::Topology topo(s.cluster);
  const exec::Symmetry sym = exec::make_symmetry(plan, topo, false);
  exec::CollectiveTimer collectives(plan, topo, sym, s.fidelity, program.send_options, nullptr);
  exec::ComputeTimer compute(program, s.cluster);
  exec::WorkTimer works(program, topo, collectives, compute);
  const exec::DeviceCells cells{0, &sym.classes.front()};

  // The first chain with both a compute work and a communication work.
  int chain = -1;
  for (std::size_t c = 0; c < program.chains.size() && chain < 0; ++c) {
    bool computes = false, communicates = false;
    for (const workload::Work& w : program.chains[c])
      (w.stream == workload::StreamKind::compute ? computes : communicates) = true;
    if (computes && communicates) chain = static_cast<int>(c);
  }
  REQUIRE(chain >= 0);
  const auto& works_of = program.chains[chain];

  const std::vector<exec::TimedWork> base = works.chain(chain, {cells, 1.0});
  const std::vector<exec::TimedWork> slow = works.chain(chain, {cells, 1.5});
  REQUIRE(base.size() == works_of.size());
  REQUIRE(slow.size() == works_of.size());
  int compute_works = 0, collective_works = 0;
  for (std::size_t i = 0; i < works_of.size(); ++i) {
    CAPTURE(i);
    if (works_of[i].stream == workload::StreamKind::compute) {
      ++compute_works;
      CHECK(base[i].duration.seconds() > 0.0);
      CHECK(slow[i].duration.seconds() ==
            doctest::Approx(1.5 * base[i].duration.seconds()).epsilon(1e-9));
      CHECK(slow[i].square_sum == doctest::Approx(2.25 * base[i].square_sum).epsilon(1e-12));
      CHECK(base[i].load == -1);
    } else {
      ++collective_works;
      CHECK(slow[i].duration == base[i].duration);
      CHECK(base[i].ib_bytes + base[i].nvlink_bytes > 0.0);
    }
  }
  CHECK(compute_works > 0);
  CHECK(collective_works > 0);
}
