// The collective timer's load profiles go the way the bytes go: a pipeline send and the send
// back between the same two GPUs load opposite directions of their links (full duplex), so on
// the live fabric a forward activation and a backward gradient crossing at once do not slow
// each other.
#include <doctest/doctest.h>

#include <set>

#include "sim/exec/collective_timer.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("A send and the send back load opposite directions of their links") {
  workload::ScenarioSpec s = test::small_scenario(2, 8);
  s.parallel.pp = 2;
  s.parallel.schedule = workload::Schedule::named("1f1b");
  const workload::ParallelPlan plan = workload::make_plan(s);
  const hw::Topology topo(s.cluster);
  const exec::Symmetry sym = exec::make_symmetry(plan, topo, false);
  exec::CollectiveTimer timer(s, plan, topo, sym, nullptr);
  timer.select(0, sym.classes.front());
  const double bytes = 64e6;
  const engine::Time up = timer.send(bytes, 0, 8);
  timer.take_link();
  const int there = timer.take_load();
  const engine::Time down = timer.send(bytes, 8, 0);
  timer.take_link();
  const int back = timer.take_load();
  CHECK(up == down);
  REQUIRE(there >= 0);
  REQUIRE(back >= 0);
  const auto profiles = timer.take_profiles();
  std::set<int> a, b;
  double sum_a = 0.0, sum_b = 0.0;
  for (const auto& l : profiles[there]) {
    a.insert(l.link);
    sum_a += l.bytes;
  }
  for (const auto& l : profiles[back]) {
    b.insert(l.link);
    sum_b += l.bytes;
  }
  CHECK(sum_a == doctest::Approx(sum_b));
  for (int l : a) {
    CAPTURE(l);
    CHECK(b.count(l) == 0);
    // Every link of the way there has its reverse on the way back.
    const auto& link = topo.links()[l];
    bool reversed = false;
    for (int m : b) reversed |= topo.links()[m].from == link.to && topo.links()[m].to == link.from;
    CHECK(reversed);
  }
}
