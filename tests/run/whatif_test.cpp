// The what-if waterfall (run/whatif.hpp): its terms sum to the step, the switches do what they
// say on the step graph, and a mechanism with a closed form gets it.
#include "sim/run/whatif.hpp"

#include <doctest/doctest.h>

#include "sim/analysis/step_metrics.hpp"
#include "sim/config/load.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using run::Mechanism;

namespace {

constexpr std::uint32_t bit(Mechanism m) {
  return std::uint32_t{1} << static_cast<int>(m);
}
constexpr std::uint32_t kAll = (std::uint32_t{1} << run::kMechanismCount) - 1;

run::Simulation simulate_without(const spec::ScenarioSpec& spec, std::uint32_t off) {
  const spec::ScenarioSpec s = run::with_mechanisms_off(spec, off);
  const run::Bounded b{run::prepare(s), {}};
  return run::simulate(b, std::make_shared<const hw::Topology>(s.cluster), nullptr,
                       run::idealisation(off));
}

double step_without(const spec::ScenarioSpec& spec, std::uint32_t off) {
  const run::Simulation sim = simulate_without(spec, off);
  return analysis::step_metrics(sim.build.graph, sim.timeline).step_s;
}

// bound + every bar = the step.
void check_sums(const run::WhatIf& w) {
  double sum = w.bound_s + w.limit_s + w.kernels_s + w.schedule_s + w.attribution.residual;
  for (const run::MechanismTerm& t : w.terms) sum += t.seconds;
  CHECK(sum == doctest::Approx(w.step_s).epsilon(1e-9));
  CHECK(w.bound_s + w.limit_s + w.kernels_s + w.schedule_s ==
        doctest::Approx(w.all_off_s).epsilon(1e-9));
  for (const run::MechanismTerm& t : w.terms)
    if (!t.active) CHECK(t.seconds == 0.0);
}

}  // namespace

TEST_CASE("The waterfall of a pipeline: bound, kernels, bubble and mechanisms sum to the step") {
  const spec::ScenarioSpec s = test::pipelined_scenario();
  for (auto scheme : {analysis::AttributionScheme::exact, analysis::AttributionScheme::pairwise}) {
    run::WhatIfOptions o;
    o.scheme = scheme;
    const run::WhatIf w = run::whatif(s, o);
    check_sums(w);
    CHECK(w.step_s == doctest::Approx(run::simulate_step(s).metrics.step_s));
    CHECK(w.schedule_s > 0.0);  // two stages of 1F1B: warm-up and cool-down
    const run::MechanismTerm& comm = w.terms[static_cast<int>(Mechanism::communication)];
    CHECK(comm.active);
    CHECK(comm.seconds > 0.0);
    CHECK_FALSE(w.terms[static_cast<int>(Mechanism::faults)].active);
    CHECK_FALSE(w.terms[static_cast<int>(Mechanism::variability)].active);
    if (scheme == analysis::AttributionScheme::exact)
      CHECK(w.attribution.residual == doctest::Approx(0.0));
  }
}

TEST_CASE(
    "Every mechanism off, one stage: the step is the bound's compute plus its kernels' memory "
    "time") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.zero = 0;
  const run::WhatIf w = run::whatif(s, {});
  check_sums(w);
  CHECK(w.schedule_s == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(w.kernels_s >= 0.0);
  CHECK(w.all_off_s == doctest::Approx(w.bounded.roofline.compute_s + w.kernels_s));
}

TEST_CASE(
    "The switches on the step graph: free communication leaves nothing exposed, free links "
    "leave every collective its own time") {
  const spec::ScenarioSpec s = test::pipelined_scenario();
  {
    const run::Simulation sim = simulate_without(s, bit(Mechanism::communication));
    const analysis::StepMetrics m = analysis::step_metrics(sim.build.graph, sim.timeline);
    for (const analysis::Breakdown& d : m.per_device) CHECK(d.exposed_comm == doctest::Approx(0.0));
    for (const exec::StepOp& op : sim.build.graph.ops)
      if (workload::is_communication(op.kind)) CHECK(op.duration == engine::Time());
  }
  {
    const run::Simulation sim = simulate_without(
        s, bit(Mechanism::link_sharing) | bit(Mechanism::hbm_sharing) | bit(Mechanism::sm_sharing));
    const auto& g = sim.build.graph;
    int checked = 0;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
      if (!workload::is_communication(g.ops[i].kind) || g.ops[i].couple >= 0) continue;
      CHECK(sim.timeline.end[i] - sim.timeline.start[i] == g.ops[i].duration);
      ++checked;
    }
    CHECK(checked > 0);
  }
}

TEST_CASE("A straggler alone, everything else off: the step grows by its slowdown exactly") {
  // One stage of data parallelism on one node: with communication free, the step is the compute
  // of the slowest GPU, which a straggler of factor f runs f times slower.
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.zero = 0;
  spec::FaultSpec f;
  f.kind = spec::FaultKind::straggler;
  f.gpu = 3;
  f.factor = 1.5;
  s.cluster.faults.push_back(f);
  const double base = step_without(s, kAll);
  const double slowed = step_without(s, kAll & ~bit(Mechanism::faults));
  CHECK(slowed == doctest::Approx(1.5 * base).epsilon(1e-9));
  const run::WhatIf w = run::whatif(s, {});
  check_sums(w);
  CHECK(w.terms[static_cast<int>(Mechanism::faults)].active);
  CHECK(w.terms[static_cast<int>(Mechanism::faults)].seconds > 0.0);
}

TEST_CASE("Communication slowed beside compute: a term where the device sets a factor, only then") {
  spec::ScenarioSpec s = test::pipelined_scenario();
  CHECK_FALSE(run::whatif(s, {}).terms[static_cast<int>(Mechanism::comm_contention)].active);
  s.cluster.device.comm_beside_compute = {.compute_bound = 2.0, .memory_bound = 1.5, .source = {}};
  const run::WhatIf w = run::whatif(s, {});
  check_sums(w);
  const run::MechanismTerm& t = w.terms[static_cast<int>(Mechanism::comm_contention)];
  CHECK(t.active);
  // Everything else on, switching it off gives back what the slower communication cost.
  CHECK(step_without(s, 0) > step_without(s, bit(Mechanism::comm_contention)));
  CHECK(step_without(s, bit(Mechanism::comm_contention)) ==
        doctest::Approx(run::simulate_step(test::pipelined_scenario()).metrics.step_s));
}

// 32 steps of 2048 GPUs: the release build's alone (the sanitizer build runs the small ones above).
#ifndef STEPSIM_TEST_SANITIZED
TEST_CASE("The DualPipe step of DeepSeek-V3: its waterfall sums to the step") {
  const auto s = config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  const run::WhatIf w = run::whatif(s, {});
  MESSAGE("bound " << w.bound_s << " s, all off " << w.all_off_s << " s, step " << w.step_s
                   << " s, " << w.attribution.evaluations << " steps simulated");
  check_sums(w);
  CHECK(w.terms[static_cast<int>(Mechanism::communication)].seconds > 0.0);
}

TEST_CASE(
    "Skewed routing: the waterfall starts from the balanced step's bound, the skew is a term") {
  const auto s = config::load_scenario(
      test::source_path("scenarios/deepseek-v3-dualpipe.yaml"),
      {config::parse_override("model.moe.routing={kind: zipf, s: 0.5, seed: 3}")});
  run::WhatIfOptions o;
  o.scheme = analysis::AttributionScheme::pairwise;
  const run::WhatIf w = run::whatif(s, o);
  check_sums(w);
  CHECK(w.scenario_bound_s > w.bound_s);  // the skewed program's busiest GPU
  CHECK(w.kernels_s > 0.0);
  CHECK(w.terms[static_cast<int>(Mechanism::expert_skew)].seconds > 0.0);
}
#endif
