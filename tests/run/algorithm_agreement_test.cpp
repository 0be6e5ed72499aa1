// One choice per collective: the step program resolves every collective's algorithm, protocol,
// channels and chunks once (workload/collective_options.hpp); the roofline counts the bytes of
// that algorithm and the executor runs it. Checked on every shipped scenario and on 200 random
// layouts (100 under the sanitizers) with random faults: the algorithms the roofline's traffic rows
// name are those the simulation ran, and every collective the simulation planned ran its program's
// choice.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "sim/config/load.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using spec::Schedule;
using spec::TrafficKind;

namespace {

// The algorithm a traffic row's label names: "all-reduce (ring) over dp=4 on 1 node(s)".
std::string named_algorithm(const std::string& label) {
  const auto open = label.find(" (");
  const auto close = label.find(')', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  return label.substr(open + 2, close - open - 2);
}

// Returns how many collectives were compared.
int check_agreement(const run::Result& sim) {
  // The program's choice for each (kind, operation, bytes) it holds.
  std::map<std::tuple<int, int, long long>, std::set<std::string>> chosen;
  auto note = [&](const workload::Work& w) {
    for (const auto& c : w.collectives)
      chosen[{static_cast<int>(c.kind), static_cast<int>(c.op), static_cast<long long>(c.bytes)}]
          .insert(c.options.algorithm);
  };
  for (const auto& chain : sim.prepared.program.chains)
    for (const auto& w : chain) note(w);
  for (const auto& tail : sim.prepared.program.tail)
    for (const auto& tw : tail) note(tw.work);

  const auto& plan = sim.plan();
  std::vector<std::set<std::string>> ran(plan.pp);  // per rank, by tp and dp collectives
  int compared = 0;
  for (const auto& p : sim.build.collectives) {
    if (p.kind == TrafficKind::pp) continue;  // pipeline sends: the roofline has no choice there
    CAPTURE(p.algorithm);
    CAPTURE(static_cast<int>(p.kind));
    const auto it = chosen.find(
        {static_cast<int>(p.kind), static_cast<int>(p.op), static_cast<long long>(p.bytes)});
    REQUIRE(it != chosen.end());
    CHECK(it->second == std::set<std::string>{p.algorithm});
    if (p.kind != TrafficKind::ep) ran.at(plan.rank_of_gpu(p.first_gpu)).insert(p.algorithm);
    ++compared;
  }
  for (int r = 0; r < plan.pp; ++r) {
    std::set<std::string> named;
    for (const auto& row : sim.roofline.per_rank.at(r).traffic)
      if (row.kind != "pp_activations" && row.kind.rfind("ep_", 0) != 0) {
        const std::string a = named_algorithm(row.collective);
        CAPTURE(row.collective);
        REQUIRE(!a.empty());
        named.insert(a);
      }
    CAPTURE(r);
    CHECK(named == ran[r]);
  }
  return compared;
}

}  // namespace

TEST_CASE("Every shipped scenario: the roofline names the algorithms the simulation ran") {
  int scenarios = 0;
  for (const std::string& file : test::shipped_scenarios()) {
    CAPTURE(file);
    CHECK(check_agreement(run::simulate_step(config::load_scenario(file, {}))) > 0);
    ++scenarios;
  }
  CHECK(scenarios >= 5);
}

TEST_CASE("Random faulted layouts: the roofline names the algorithms the simulation ran") {
  const int layouts = test::kSanitized ? 100 : 200;
  std::mt19937_64 rng(23);
  auto pick = [&](std::initializer_list<int> v) {
    return *(v.begin() + std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng));
  };
  int simulated = 0, tries = 0, faulted = 0, compared = 0;
  while (simulated < layouts && tries < 5000) {
    ++tries;
    const int nodes = pick({1, 2, 4, 8});
    spec::ScenarioSpec s = test::small_scenario(nodes, 8);
    s.cluster.fabric.switch_ports = pick({4, 8, 64});  // 2, 4 or 32 nodes under a leaf
    s.cluster.fabric.kind = nodes == 1     ? spec::FabricKind::none
                            : pick({0, 1}) ? spec::FabricKind::multi_plane_fat_tree
                                           : spec::FabricKind::rail_fat_tree;
    s.model.layers = pick({4, 8});
    if (pick({0, 1})) {
      s.model.moe.enabled = true;
      s.model.moe.experts = pick({8, 16, 64});
      s.model.moe.top_k = pick({1, 2, 4});
      s.model.moe.intermediate = 1024;
      s.model.moe.every = 1;
    }
    auto& p = s.parallel;
    p.pp = pick({1, 2, 4});
    p.tp = pick({1, 2, 4, 8});
    p.ep = s.model.moe.enabled ? pick({1, 2, 4, 8, 16}) : 1;
    p.zero = pick({0, 1, 2, 3});
    p.schedule = p.pp == 1 ? workload::schedule_named("none") : workload::schedule_named("1f1b");
    s.training.global_batch = pick({16, 32});
    const spec::FabricShape shape = spec::fabric_shape(s.cluster);
    for (int k = pick({1, 1, 2, 3}); k > 0; --k) {
      spec::FaultSpec f;
      f.kind = static_cast<spec::FaultKind>(pick({0, 1, 2, 3, 4, 5}));
      f.node = std::uniform_int_distribution<int>(0, nodes - 1)(rng);
      f.nic = pick({0, 1, 2, 3, 4, 5, 6, 7});
      f.gpu = std::uniform_int_distribution<int>(0, nodes * 8 - 1)(rng);
      f.factor = f.kind == spec::FaultKind::straggler ? 1.3 : 0.5;
      if (f.on_leaf_spine_link()) {
        if (shape.spines_per_plane == 0) continue;
        f.plane = std::uniform_int_distribution<int>(0, shape.planes - 1)(rng);
        f.leaf = std::uniform_int_distribution<int>(0, shape.leaves_per_plane - 1)(rng);
        f.spine = std::uniform_int_distribution<int>(0, shape.spines_per_plane - 1)(rng);
      }
      if (nodes == 1 && f.kind != spec::FaultKind::straggler &&
          f.kind != spec::FaultKind::nvlink_degrade)
        continue;
      s.cluster.faults.push_back(f);
    }
    run::Result sim;
    try {
      sim = run::simulate_step(s);
    } catch (const engine::UserError&) {
      continue;  // an invalid layout, or a fault that leaves no route
    }
    CAPTURE(nodes);
    CAPTURE(p.pp);
    CAPTURE(p.tp);
    CAPTURE(p.ep);
    CAPTURE(p.zero);
    CAPTURE(s.cluster.faults.size());
    compared += check_agreement(sim);
    faulted += !s.cluster.faults.empty();
    ++simulated;
  }
  MESSAGE(simulated << " layouts simulated of " << tries << " drawn, " << faulted
                    << " with faults, " << compared << " collectives compared");
  CHECK(simulated == layouts);
  CHECK(faulted >= layouts * 3 / 4);
  CHECK(compared >= layouts * 5);
}
