// What a layout search enumerates.
#include <doctest/doctest.h>

#include <set>

#include "sim/search/search_space.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("every enumerated layout multiplies out to the world and divides the batch") {
  const spec::ScenarioSpec base = test::small_scenario(4, 8);  // 32 GPUs, 64 sequences
  const search::SearchSpace space = search::enumerate(base, {});
  REQUIRE(!space.layouts.empty());
  CHECK(space.recomputes.size() == 3);  // none, selective, full: the model lists no others
  std::set<int> tps, pps;
  for (const search::Layout& l : space.layouts) {
    CHECK(l.tp * l.pp * l.dp == 32);
    CHECK(l.ep == 1);  // a dense model
    CHECK(base.training.global_batch % (static_cast<long long>(l.dp) * l.micro_batch) == 0);
    CHECK((l.schedule.is_none()) == (l.pp == 1));
    if (l.pp > 1) CHECK(l.zero <= 1);
    if (l.tp == 1) CHECK_FALSE(l.sequence_parallel);
    if (l.virtual_stages > 1) CHECK(workload::to_string(l.schedule) == "interleaved");
    tps.insert(l.tp);
    pps.insert(l.pp);
  }
  CHECK(tps == std::set<int>{1, 2, 4, 8});
  CHECK(pps == std::set<int>{1, 2, 4, 8});  // at most the model's 8 layers
}

TEST_CASE("a pinned dimension takes the base scenario's value") {
  spec::ScenarioSpec base = test::small_scenario(4, 8);
  base.parallel.tp = 4;
  base.parallel.schedule = workload::schedule_named("1f1b");
  base.training.micro_batch = 2;
  const search::SearchSpace space =
      search::enumerate(base, {"parallelism.tp", "parallelism.schedule", "training.micro_batch"});
  REQUIRE(!space.layouts.empty());
  for (const search::Layout& l : space.layouts) {
    CHECK(l.tp == 4);
    CHECK(workload::to_string(l.schedule) == "1f1b");
    CHECK(l.micro_batch == 2);
  }
}

TEST_CASE("a batch no micro-batch size divides keeps one layout, for its reason") {
  spec::ScenarioSpec base = test::small_scenario(4, 8);
  base.training.global_batch = 48;  // not a multiple of dp = 32
  int dp32 = 0;
  for (const search::Layout& l : search::enumerate(base, {}).layouts)
    if (l.dp == 32) {
      ++dp32;
      CHECK(l.micro_batch == 1);
    }
  CHECK(dp32 > 0);
}

TEST_CASE("a MoE model's expert parallelism divides dp x tp and the experts") {
  spec::ScenarioSpec base = test::small_scenario(2, 8);
  base.model.moe.enabled = true;
  base.model.moe.experts = 8;
  base.model.moe.top_k = 2;
  base.model.moe.intermediate = 512;
  base.model.recompute_lists = {{"paper", {"swiglu"}}};
  const search::SearchSpace space = search::enumerate(base, {});
  CHECK(space.recomputes.back().name == "paper");
  std::set<int> eps;
  for (const search::Layout& l : space.layouts) {
    CHECK((l.dp * l.tp) % l.ep == 0);
    CHECK(8 % l.ep == 0);
    CHECK((l.ep > 1) == (l.comm_sms > 0));
    eps.insert(l.ep);
  }
  CHECK(eps == std::set<int>{1, 2, 4, 8});
}

TEST_CASE("long sequences add context parallelism: 2 cp chunks divide them, 8K tokens per GPU") {
  spec::ScenarioSpec base = test::small_scenario(4, 8);  // 32 GPUs
  base.training.seq_len = 65536;                         // cp up to 8: 8,192 tokens per GPU
  std::set<int> cps;
  std::set<std::pair<int, int>> algorithms;
  for (const search::Layout& l : search::enumerate(base, {}).layouts) {
    CHECK(l.tp * l.pp * l.cp * l.dp == 32);
    CHECK(base.training.seq_len % (2 * l.cp) == 0);
    cps.insert(l.cp);
    algorithms.insert({l.cp, static_cast<int>(l.cp_algorithm)});
  }
  CHECK(cps == std::set<int>{1, 2, 4, 8});
  CHECK(algorithms.count({1, 0}) == 1);
  CHECK(algorithms.count({1, 1}) == 0);  // cp = 1 runs no algorithm: counted once
  for (int cp : {2, 4, 8})
    for (int a = 0; a < 4; ++a) CHECK(algorithms.count({cp, a}) == 1);
  base.training.seq_len = 4096;  // too short to split
  for (const search::Layout& l : search::enumerate(base, {}).layouts) CHECK(l.cp == 1);
  base.parallel.cp = 16;  // pinned: taken as it is
  for (const search::Layout& l : search::enumerate(base, {"parallelism.cp"}).layouts)
    CHECK(l.cp == 16);
}
