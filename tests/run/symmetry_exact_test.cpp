// Property: the symmetry reduction is exact. Default runs merge the cells no fault touches into
// one class; --exact simulates every cell. On random small scenarios (up to 256 GPUs: pp, tp, ep,
// cp and its algorithm, ZeRO stage, schedule, fidelity, switch size, and 0-2 faults of every kind
// at random places)
// both give the same step to 1e-9 relative. Invalid layouts are skipped.
#include <doctest/doctest.h>

#include <array>
#include <random>

#include "sim/engine/user_error.hpp"
#include "sim/exec/symmetry.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using spec::Schedule;

namespace {

struct Drawn {
  spec::ScenarioSpec spec;
  std::string what;
};

// Context parallelism is drawn from a generator of its own, so the other choices stay those
// drawn before it existed.
Drawn draw(std::mt19937_64& rng, std::mt19937_64& cp_rng) {
  auto pick = [&](std::initializer_list<int> v) {
    return *(v.begin() + std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng));
  };
  auto below = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const int nodes = pick({1, 2, 4, 8, 16, 32});
  spec::ScenarioSpec s = test::small_scenario(nodes, 8);
  s.cluster.fabric.switch_ports = pick({64, 8, 16});
  s.model.layers = pick({4, 8});
  if (pick({0, 1})) {
    s.model.moe.enabled = true;
    s.model.moe.experts = pick({16, 64});
    s.model.moe.top_k = pick({2, 4});
    s.model.moe.intermediate = 1024;
    s.model.moe.every = 1;
  }
  auto& p = s.parallel;
  p.pp = pick({1, 2, 4});
  p.tp = pick({1, 2, 8});
  p.ep = s.model.moe.enabled ? pick({1, 2, 8, 16}) : 1;
  p.zero = pick({0, 1, 3});
  p.schedule = p.pp == 1 ? workload::schedule_named("none")
                         : workload::schedule_at(std::uniform_int_distribution<std::size_t>(
                               1, workload::all_schedules().size() - 1)(rng));
  p.virtual_stages = workload::schedule_def(p.schedule).uses_virtual_stages ? 2 : 1;
  p.cp = std::array{1, 1, 2, 4}[std::uniform_int_distribution<int>(0, 3)(cp_rng)];
  p.cp_algorithm = static_cast<spec::CpAlgorithm>(std::uniform_int_distribution<int>(0, 3)(cp_rng));
  s.training.seq_len = 512;
  s.training.global_batch = pick({32, 64, 128}) * std::max(1, nodes / 4);
  s.fidelity = static_cast<spec::NetworkFidelity>(pick({0, 1, 1}));
  const int gpus = nodes * 8;
  std::string what = std::to_string(nodes) + " nodes, pp " + std::to_string(p.pp) + " tp " +
                     std::to_string(p.tp) + " ep " + std::to_string(p.ep) + " zero " +
                     std::to_string(p.zero) + " cp " + std::to_string(p.cp) + " " +
                     std::string(spec::kCpAlgorithms.word(p.cp_algorithm)) + " schedule " +
                     std::string(workload::to_string(p.schedule)) + " ports " +
                     std::to_string(s.cluster.fabric.switch_ports);
  const int faults = pick({0, 1, 2});
  for (int i = 0; i < faults; ++i) {
    spec::FaultSpec f;
    f.kind = static_cast<spec::FaultKind>(below(6));
    f.node = below(nodes);
    f.nic = below(8);
    f.gpu = below(gpus);
    f.factor = f.kind == spec::FaultKind::straggler ? 1.5 : 0.25;
    if (f.kind == spec::FaultKind::link_down || f.kind == spec::FaultKind::link_degrade) {
      const int half = s.cluster.fabric.switch_ports / 2;
      if (nodes <= half) f.kind = spec::FaultKind::nic_degrade;  // no spines: a NIC instead
      f.plane = below(8);
      f.leaf = below((nodes + half - 1) / half);
      f.spine = below(half);
    }
    if (nodes == 1 &&
        (f.kind == spec::FaultKind::nic_down || f.kind == spec::FaultKind::nic_degrade))
      f.kind = spec::FaultKind::straggler;
    s.cluster.faults.push_back(f);
    what += ", fault " + std::to_string(static_cast<int>(f.kind));
  }
  return {s, what};
}

}  // namespace

TEST_CASE("Symmetry classes and --exact give the same step on 50 random scenarios") {
  std::mt19937_64 rng(11), cp_rng(5);
  int compared = 0, reduced = 0, tries = 0, with_cp = 0;
  while (compared < 50 && tries < 2000) {
    ++tries;
    Drawn d = draw(rng, cp_rng);
    run::Result merged, exact;
    try {
      merged = run::simulate_step(d.spec);
      d.spec.exact = true;
      exact = run::simulate_step(d.spec);
    } catch (const engine::UserError&) {
      continue;  // an invalid layout, or a fault that leaves no route
    }
    CAPTURE(d.what);
    CAPTURE(merged.build.graph.classes);
    CAPTURE(exact.build.graph.classes);
    CHECK(merged.metrics.step_s == doctest::Approx(exact.metrics.step_s).epsilon(1e-9));
    if (exact.build.graph.classes > merged.build.graph.classes) ++reduced;
    if (d.spec.parallel.cp > 1) ++with_cp;
    ++compared;
  }
  MESSAGE(compared << " scenarios compared of " << tries << " drawn; " << reduced
                   << " of them reduced, " << with_cp << " with context parallelism");
  CHECK(compared == 50);
  CHECK(reduced >= 25);  // most draws have cells to merge: the property is exercised
  CHECK(with_cp >= 10);
}

TEST_CASE("Columns on different leaves at the same ports merge, exactly") {
  // 16 nodes of 8 GPUs, 4 nodes per leaf (8-port switches: 4 leaves of 4 uplinks need 2 spines
  // per plane); pp 2, ep 8: a cell is a node, a pipeline rank 8 nodes on two leaves. Column j
  // sits under leaf j / 4 (rank 0) and 2 + j / 4 (rank 1) at port j % 4, which picks spine
  // j % 2: columns j and j + 4 are one leaf apart at the same ports, so 2 classes stand for the
  // 8 columns (4 if leaves had to be the same), and the step is --exact's.
  spec::ScenarioSpec s = test::small_scenario(16, 8);
  s.cluster.fabric.switch_ports = 8;
  s.model.moe = {true, 16, 0, 2, 1024, 0, 1, 0, 0, {}};
  s.parallel.pp = 2;
  s.parallel.ep = 8;
  s.parallel.schedule = workload::schedule_named("1f1b");
  s.training.global_batch = 64;
  const run::Result merged = run::simulate_step(s);
  CHECK(merged.build.graph.classes == 2);
  s.exact = true;
  const run::Result exact = run::simulate_step(s);
  CHECK(exact.build.graph.classes == 8);
  CHECK(merged.metrics.step_s == doctest::Approx(exact.metrics.step_s).epsilon(1e-9));
}
