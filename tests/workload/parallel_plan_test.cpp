#include "sim/workload/parallel_plan.hpp"

#include <doctest/doctest.h>

#include "sim/workload/memory.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim::workload;
using namespace stepsim::spec;
using stepsim::engine::UserError;

TEST_CASE("dp is derived from world / (pp * tp); micro-batches from the global batch") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);  // 32 GPUs
  s.parallel.pp = 4;
  s.parallel.tp = 2;
  s.parallel.schedule = schedule_named("1f1b");
  s.training.global_batch = 64;
  const ParallelPlan p = make_plan(s);
  CHECK(p.dp == 4);
  CHECK(p.micro_batches == 16);
  CHECK(p.stages == 4);
  CHECK(p.stage_layers == std::vector<int>{2, 2, 2, 2});
  CHECK(p.group(workload::GroupRole::tp).gpus_per_node == 2);
  CHECK(p.group(workload::GroupRole::dp).size == 4);
  CHECK(p.group(workload::GroupRole::dp).nodes() == 1);  // dp·tp = 8 fills a node
  CHECK_FALSE(p.stage_neighbours_on_same_node());
}

TEST_CASE("Uneven layer split gives the remainder to middle stages first") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.model.layers = 11;
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("1f1b");
  const ParallelPlan p = make_plan(s);
  CHECK(p.stage_layers == std::vector<int>{3, 3, 3, 2});
  CHECK(p.stage_first_layer == std::vector<int>{0, 3, 6, 9});
}

TEST_CASE("Embedding and head counted as a layer each in the balanced split") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.model.layers = 14;
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("1f1b");
  s.parallel.account_embedding = true;
  s.parallel.account_head = true;
  // 16 units over 4 stages: 4 each, the embedding and the head taking one unit of the end stages.
  CHECK(make_plan(s).stage_layers == std::vector<int>{3, 4, 4, 3});
  s.parallel.account_embedding = false;
  // 15 units: 4, 4, 4, 3; the head takes one of the last stage's.
  CHECK(make_plan(s).stage_layers == std::vector<int>{4, 4, 4, 2});
  // Four layers on four stages with both counted: the end stages hold the embedding or the head
  // alone.
  s.model.layers = 4;
  s.parallel.account_embedding = true;
  const ParallelPlan p = make_plan(s);
  CHECK(p.stage_layers == std::vector<int>{0, 2, 2, 0});
  CHECK(stage_layer_indices(p, 0) == std::vector<int>{-1});
  CHECK(stage_layer_indices(p, 3) == std::vector<int>{-2});
}

TEST_CASE("Explicit stage_layers: only the end stages may be empty") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("1f1b");
  s.parallel.stage_layers = {0, 4, 4, 0};
  CHECK(make_plan(s).stage_first_layer == std::vector<int>{0, 0, 4, 8});
  s.parallel.stage_layers = {2, 0, 3, 3};
  CHECK_THROWS_AS(make_plan(s), stepsim::engine::UserError);
  s.parallel.stage_layers = {2, 2, 2, 3};
  CHECK_THROWS_AS(make_plan(s), stepsim::engine::UserError);
  // The account flags shape the balanced split only; with an explicit one they are a mistake.
  s.parallel.stage_layers = {0, 4, 4, 0};
  s.parallel.account_head = true;
  CHECK_THROWS_AS(make_plan(s), stepsim::engine::UserError);
}

TEST_CASE(
    "Interleaved: with the embedding and head counted, layers + 2 stages fit (Megatron's layout)") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.parallel.pp = 2;
  s.parallel.schedule = schedule_named("interleaved");
  s.parallel.virtual_stages = 5;  // 10 stages for 8 layers
  CHECK_THROWS_AS(make_plan(s), stepsim::engine::UserError);
  s.parallel.account_embedding = true;
  s.parallel.account_head = true;
  CHECK(make_plan(s).stage_layers == std::vector<int>{0, 1, 1, 1, 1, 1, 1, 1, 1, 0});
}

TEST_CASE("DualPipe pairs stage i with stage pp-1-i, half the micro-batches each") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("dualpipe");
  s.training.global_batch = 64;  // dp 8 -> m = 8 = 2·pp
  const ParallelPlan p = make_plan(s);
  REQUIRE(p.device_stages[1].size() == 2);
  CHECK(p.device_stages[1][0].stage == 1);
  CHECK(p.device_stages[1][1].stage == 2);
  CHECK(p.device_stages[1][0].share == 0.5);
  CHECK(peak_in_flight_micro_batches(s, p, 0) == 5.0);  // pp + 1
}

TEST_CASE("Interleaved and DualPipeV cut the model into more stages") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.parallel.pp = 2;
  s.parallel.schedule = schedule_named("interleaved");
  s.parallel.virtual_stages = 2;
  s.training.global_batch = 64;  // dp 16 -> m = 4
  ParallelPlan p = make_plan(s);
  CHECK(p.stages == 4);
  CHECK(p.device_stages[0][1].stage == 2);
  // Megatron's warm-up on the first device: (pp-1)·2 + (v-1)·pp + 1 = 5 chunks.
  CHECK(peak_in_flight_micro_batches(s, p, 0) == 5.0);
  s.parallel.schedule = schedule_named("dualpipev");
  s.parallel.virtual_stages = 1;
  p = make_plan(s);
  CHECK(p.stages == 4);
  CHECK(p.device_stages[0][1].stage == 3);
}

TEST_CASE("1F1B holds pp micro-batches on the first stage, GPipe all m") {
  ScenarioSpec s = stepsim::test::small_scenario(4, 8);
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("1f1b");
  s.training.global_batch = 128;
  ParallelPlan p = make_plan(s);
  CHECK(peak_in_flight_micro_batches(s, p, 0) == 4.0);
  CHECK(peak_in_flight_micro_batches(s, p, 3) == 1.0);
  s.parallel.schedule = schedule_named("gpipe");
  CHECK(peak_in_flight_micro_batches(s, make_plan(s), 0) == 16.0);
}

TEST_CASE("Impossible layouts are user errors naming the field") {
  auto fails_at = [](ScenarioSpec s, const std::string& key) {
    try {
      make_plan(s);
    } catch (const UserError& e) {
      CHECK(e.loc().file == "where:" + key);
      return;
    }
    FAIL("no error for " << key);
  };
  ScenarioSpec base = stepsim::test::small_scenario(4, 8);
  ScenarioSpec s = base;
  s.parallel.pp = 3;
  s.parallel.schedule = schedule_named("1f1b");
  fails_at(s, "parallelism");  // 32 % 3
  s = base;
  s.parallel.dp = 5;
  fails_at(s, "parallelism.dp");
  s = base;
  s.model.layers = 2;
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("1f1b");
  fails_at(s, "parallelism.pp");
  s = base;
  s.training.global_batch = 33;
  fails_at(s, "training.global_batch");
  s = base;
  s.parallel.pp = 4;
  s.parallel.schedule = schedule_named("dualpipe");
  s.training.global_batch = 32;  // m = 4 < 2·pp
  fails_at(s, "training.global_batch");
  s = base;
  s.parallel.ep = 4;  // dense model
  fails_at(s, "parallelism.ep");
  s = base;
  s.parallel.pp = 2;
  s.parallel.zero = 3;
  s.parallel.schedule = schedule_named("1f1b");
  fails_at(s, "parallelism.zero");
  s = base;
  s.parallel.pp = 2;
  fails_at(s, "parallelism.pp");  // pp without a schedule
}
