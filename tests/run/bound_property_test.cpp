// Property: the roofline and the simulation count the same work, and the bound never exceeds the
// simulated step. For every simulated device, the FLOPs of its kernels and the NVLink and
// InfiniBand bytes per GPU of its collectives sum to the roofline's figures for its pipeline rank;
// the roofline takes them at achievable rates with no latency, no bubble and perfect overlap, so a
// bound above the simulation means the two disagree. Random small layouts (up to 64 GPUs: pp,
// tp, ep, cp and its algorithm, ZeRO stage, schedule, micro-batches, recomputation, sequence
// parallelism, fidelity);
// invalid ones are skipped.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "sim/config/load.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using spec::Schedule;

namespace {

void check_same_work(const run::Result& sim) {
  CHECK(sim.roofline.bound_s <= sim.metrics.step_s * (1 + 1e-9));
  const auto& g = sim.build.graph;
  std::vector<analysis::RankWork> work(g.devices);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const exec::OpFacts& f = g.facts[i];
    work[g.ops[i].device].flops += f.flops;
    work[g.ops[i].device].comm += {f.nvlink_bytes, f.ib_bytes};
  }
  for (int d = 0; d < g.devices; ++d) {
    const analysis::RankWork& roof = sim.roofline.per_rank.at(g.rank_of(d));
    CAPTURE(d);
    CHECK(work[d].flops == doctest::Approx(roof.flops).epsilon(1e-9));
    CHECK(work[d].comm.nvlink == doctest::Approx(roof.comm.nvlink).epsilon(1e-9));
    CHECK(work[d].comm.ib == doctest::Approx(roof.comm.ib).epsilon(1e-9));
  }
}

}  // namespace

TEST_CASE("Every shipped scenario: the roofline counts the simulation's work, below its step") {
  int scenarios = 0;
  for (const std::string& file : test::shipped_scenarios()) {
    CAPTURE(file);
    check_same_work(run::simulate_step(config::load_scenario(file, {})));
    ++scenarios;
  }
  CHECK(scenarios >= 5);
}

TEST_CASE("The roofline bound is at most the simulated step on random layouts") {
  const int layouts = test::kSanitized ? 100 : 200;
  std::mt19937_64 rng(7);
  auto pick = [&](std::initializer_list<int> v) {
    return *(v.begin() + std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng));
  };
  int simulated = 0, tries = 0, with_cp = 0;
  while (simulated < layouts && tries < 5000) {
    ++tries;
    const int nodes = pick({1, 2, 4, 8});
    spec::ScenarioSpec s = test::small_scenario(nodes, 8);
    s.model.layers = pick({4, 8, 12});
    if (pick({0, 1})) {
      s.model.moe.enabled = true;
      s.model.moe.experts = pick({8, 16, 64});
      s.model.moe.top_k = pick({1, 2, 4});
      s.model.moe.intermediate = 1024;
      s.model.moe.shared_experts = pick({0, 1});
      s.model.moe.first_dense_layers = pick({0, 1});
      s.model.moe.every = 1;
    }
    auto& p = s.parallel;
    p.pp = pick({1, 2, 4});
    p.tp = pick({1, 2, 4, 8});
    p.ep = s.model.moe.enabled ? pick({1, 2, 4, 8, 16}) : 1;
    p.zero = pick({0, 1, 2, 3});
    p.schedule = p.pp == 1 ? workload::schedule_named("none")
                           : workload::schedule_at(std::uniform_int_distribution<std::size_t>(
                                 1, workload::all_schedules().size() - 1)(rng));
    p.virtual_stages = workload::schedule_def(p.schedule).uses_virtual_stages ? 2 : 1;
    p.sequence_parallel = p.tp > 1 && pick({0, 1});
    p.comm_sms = pick({0, 0, 20});
    p.cp = pick({1, 1, 2, 4});
    p.cp_algorithm = static_cast<spec::CpAlgorithm>(pick({0, 1, 2, 3}));
    s.training.seq_len = pick({512, 1024, 2048});
    s.training.global_batch = pick({16, 32, 64, 128});
    s.training.recompute.mode = static_cast<spec::RecomputeMode>(pick({0, 1, 2}));
    s.fidelity = static_cast<spec::NetworkFidelity>(pick({0, 0, 1}));
    run::Result sim;
    try {
      sim = run::simulate_step(s);
    } catch (const engine::UserError&) {
      continue;  // an invalid layout
    }
    CAPTURE(nodes);
    CAPTURE(p.pp);
    CAPTURE(p.tp);
    CAPTURE(p.ep);
    CAPTURE(p.cp);
    CAPTURE(static_cast<int>(p.cp_algorithm));
    CAPTURE(p.zero);
    CAPTURE(workload::to_string(p.schedule));
    CAPTURE(s.model.moe.enabled);
    CAPTURE(static_cast<int>(s.training.recompute.mode));
    CAPTURE(p.sequence_parallel);
    CAPTURE(s.training.global_batch);
    check_same_work(sim);
    if (p.cp > 1) ++with_cp;
    ++simulated;
  }
  MESSAGE(simulated << " layouts simulated of " << tries << " drawn, " << with_cp
                    << " with context parallelism");
  CHECK(with_cp >= layouts * 3 / 20);
  CHECK(simulated == layouts);
}
