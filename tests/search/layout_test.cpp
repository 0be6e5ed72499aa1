// A layout applied to a base scenario, its one-line description, its --set arguments, its family.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/search/layout.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using search::Layout;

namespace {

const std::vector<search::RecomputeOption> kRecomputes = {
    {"none", {}}, {"mine", {spec::RecomputeMode::ops, {"rmsnorm", "swiglu"}}}};

Layout published() {
  Layout l;
  l.pp = 16;
  l.dp = 128;
  l.ep = 64;
  l.zero = 1;
  l.schedule = workload::schedule_named("dualpipe");
  l.recompute = 1;
  l.comm_sms = 20;
  return l;
}

}  // namespace

TEST_CASE("apply sets the layout's keys and drops an explicit split") {
  spec::ScenarioSpec base = test::small_scenario(2, 8);
  base.parallel.stage_layers = {4, 4};
  const spec::ScenarioSpec s = search::apply(base, published(), kRecomputes);
  CHECK(s.parallel.pp == 16);
  CHECK(s.parallel.dp == 128);
  CHECK(s.parallel.ep == 64);
  CHECK(s.parallel.zero == 1);
  CHECK(s.parallel.comm_sms == 20);
  CHECK(s.parallel.schedule == workload::schedule_named("dualpipe"));
  CHECK(s.parallel.stage_layers.empty());
  CHECK(s.training.recompute.mode == spec::RecomputeMode::ops);
  CHECK(s.training.recompute.ops == std::vector<std::string>{"rmsnorm", "swiglu"});
  CHECK(s.name == search::describe(published(), kRecomputes));
}

TEST_CASE("describe names every degree; family names the structure only") {
  CHECK(search::describe(published(), kRecomputes) ==
        "TP1 PP16 DP128 EP64 ZeRO-1 dualpipe mb1 recompute=mine sms=20");
  CHECK(search::family(published()) == "dualpipe + EP + ZeRO-1");
  Layout dp;
  dp.dp = 512;
  CHECK(search::family(dp) == "plain data parallelism");
  dp.zero = 3;
  CHECK(search::family(dp) == "ZeRO-3 data parallelism");
  dp.tp = 8;
  dp.sequence_parallel = true;
  CHECK(search::family(dp) == "TP + ZeRO-3");
  CHECK(search::describe(dp, kRecomputes).rfind("TP8+SP PP1 DP512 EP1 ZeRO-3 none", 0) == 0);
}

TEST_CASE("the --set arguments turn the scenario into the layout") {
  // Applied to the published scenario's file, they reproduce the layout apply() makes.
  Layout l = published();
  l.pp = 8;
  l.dp = 256;
  l.account = true;
  std::vector<config::Override> sets;
  for (const std::string& a : search::set_arguments(l, kRecomputes))
    sets.push_back(config::parse_override(a));
  const auto from_file =
      config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"), sets);
  const auto base = config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  const auto applied = search::apply(base, l, kRecomputes);
  CHECK(from_file.parallel.pp == applied.parallel.pp);
  CHECK(from_file.parallel.dp == applied.parallel.dp);
  CHECK(from_file.parallel.ep == applied.parallel.ep);
  CHECK(from_file.parallel.schedule == applied.parallel.schedule);
  CHECK(from_file.parallel.account_embedding);
  CHECK(from_file.parallel.account_head);
  CHECK(from_file.parallel.comm_sms == 20);
  CHECK(from_file.training.recompute.ops == applied.training.recompute.ops);
}

TEST_CASE("changed_arguments: only the keys that differ from the base, and its split cleared") {
  auto base = config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  const std::vector<search::RecomputeOption> recomputes = {{"none", {}},
                                                           {"deepseek", base.training.recompute}};
  // The scenario's own layout as the search enumerates it: no change at all.
  const auto own = search::layout_of(base, recomputes);
  REQUIRE(own.has_value());
  CHECK(own->pp == 16);
  CHECK(own->dp == 128);  // derived from the world
  CHECK(own->recompute == 1);
  CHECK(search::changed_arguments(base, *own, recomputes).empty());
  CHECK(search::describe(base, recomputes) == search::describe(*own, recomputes));
  // Two keys changed: two arguments, and applying them gives apply()'s layout.
  Layout l = *own;
  l.pp = 8;
  l.dp = 256;
  CHECK(search::changed_arguments(base, l, recomputes) ==
        std::vector<std::string>{"parallelism.pp=8", "parallelism.dp=256"});
  // An explicit split: not a layout the search enumerates, described with it, cleared to reach
  // any layout of the search.
  base.parallel.stage_layers = std::vector<int>(15, 4);
  base.parallel.stage_layers.push_back(1);
  CHECK_FALSE(search::layout_of(base, recomputes).has_value());
  CHECK(search::describe(base, recomputes) ==
        "TP1 PP16 DP128 EP64 ZeRO-1 dualpipe mb1 recompute=deepseek sms=20 "
        "split=[4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,1]");
  const auto changes = search::changed_arguments(base, l, recomputes);
  CHECK(changes.back() == "parallelism.stage_layers=[]");
  std::vector<config::Override> sets;
  sets.push_back(
      config::parse_override("parallelism.stage_layers=[4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,1]"));
  for (const std::string& a : changes) sets.push_back(config::parse_override(a));
  const auto from_file =
      config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"), sets);
  CHECK(from_file.parallel.pp == 8);
  CHECK(from_file.parallel.stage_layers.empty());
  // A recomputation that is none of the options: not enumerated either.
  base.parallel.stage_layers.clear();
  CHECK(search::layout_of(base, {{"none", {}}}) == std::nullopt);
}
