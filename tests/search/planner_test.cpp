// The layout search on a small model: its results round-trip exactly through their text form,
// its ranking and its verdicts follow the rules in planner.hpp.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/search/planner.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

// GPT-3 175B on 8 DGX A100 nodes with a small batch, tensor parallelism and recomputation pinned.
spec::ScenarioSpec base() {
  return config::load_scenario(test::source_path("scenarios/gpt3-175b-a100.yaml"),
                               {config::parse_override("cluster.nodes=8"),
                                config::parse_override("training.global_batch=32")});
}

search::PlanResult plan_with(int threads) {
  const spec::ScenarioSpec b = base();
  search::SearchSpace space =
      search::enumerate(b, {"parallelism.tp", "parallelism.sequence_parallel", "training.recompute",
                            "training.micro_batch"});
  run::Workers w(threads);
  search::PlanOptions options;
  options.top = 3;
  return search::run_plan(b, std::move(space), options, w);
}

}  // namespace

TEST_CASE("evaluations and simulations round-trip exactly through their text form") {
  search::Evaluation e;
  e.status = search::Evaluation::Status::no_fit;
  e.bound_s = 1.0 / 3.0;
  e.pipelined_s = 2.0 / 3.0;
  e.micro_batches = 7;
  e.times = {0.1, 0.2, 1e-300, 7.0};
  e.limited_by = 3;
  e.memory = 81e9 + 0.5;
  e.capacity = 80e9;
  e.memory_terms = {1, 2, 3, 4, 5};
  e.rounded_batch = 16384;
  e.reason = "a reason, with spaces: and punctuation";
  e.split = "4,4,3,";
  const search::Evaluation back = search::parse_evaluation(search::serialize(e));
  CHECK(back.status == e.status);
  CHECK(back.bound_s == e.bound_s);
  CHECK(back.pipelined_s == e.pipelined_s);
  CHECK(back.micro_batches == 7);
  CHECK(back.times == e.times);
  CHECK(back.limited_by == 3);
  CHECK(back.memory == e.memory);
  CHECK(back.memory_terms == e.memory_terms);
  CHECK(back.rounded_batch == 16384);
  CHECK(back.reason == e.reason);
  CHECK(back.split == e.split);
  search::Simulated s;
  s.step_s = 17.3;
  s.mean.bubble = 2.0 / 7.0;
  s.capacity = 80e9;
  s.peak_memory = 70e9;
  s.limited_by = 2;
  s.error = "";
  const search::Simulated sb = search::parse_simulated(search::serialize(s));
  CHECK(sb.step_s == s.step_s);
  CHECK(sb.mean.bubble == s.mean.bubble);
  CHECK(sb.limited_by == 2);
  CHECK(sb.fits());
}

TEST_CASE("the search ranks its winners by simulated step and explains every other family") {
  const search::PlanResult r = plan_with(1);
  REQUIRE(r.winners >= 1);
  REQUIRE(r.winners <= 3);
  for (std::size_t k = 1; k < r.winners; ++k)
    CHECK(r.simulated[k - 1].sim.step_s <= r.simulated[k].sim.step_s);
  // The winners are the fastest of everything simulated.
  for (std::size_t k = r.winners; k < r.simulated.size(); ++k)
    if (r.simulated[k].sim.fits())
      CHECK(r.simulated[r.winners - 1].sim.step_s <= r.simulated[k].sim.step_s);
  // Every winner was bounded, fits, and its simulated step is no shorter than its bound.
  for (std::size_t k = 0; k < r.winners; ++k) {
    const auto& c = r.simulated[k];
    const search::Evaluation& e = r.evaluations[c.layout];
    CHECK(e.status == search::Evaluation::Status::bounded);
    CHECK(c.sim.step_s >= e.bound_s * (1 - 1e-9));
    // The ideal bubble: compute x (1 + bubble / m), never below the bound.
    const search::Layout& l = r.space.layouts[c.layout];
    const double m = 32.0 / (l.dp * l.micro_batch);
    CHECK(e.micro_batches == static_cast<long long>(m));
    const double bubble = workload::schedule_def(l.schedule).bubble(l.pp, m, l.virtual_stages);
    CHECK(e.pipelined_s ==
          doctest::Approx(std::max(e.bound_s, e.times[0] * (1 + bubble / m))).epsilon(1e-12));
  }
  std::size_t counted = 0;
  for (const search::FamilyVerdict& f : r.families) {
    counted += f.layouts;
    CHECK(f.invalid + f.no_fit + f.bounded + f.same_split == f.layouts);
    CHECK(f.has_winner == f.why.empty());
    if (f.bounded + f.no_fit == 0) CHECK(f.why.rfind("invalid", 0) == 0);
    if (f.bounded == 0 && f.no_fit > 0) CHECK(f.why.rfind("does not fit", 0) == 0);
  }
  CHECK(counted == r.evaluations.size());
}

TEST_CASE("threads change nothing in the result") {
  // Every evaluation, simulation, ranking and verdict, as the workers exchange them.
  auto everything = [](const search::PlanResult& r) {
    std::string s = std::to_string(r.winners) + "\n";
    for (const search::Evaluation& e : r.evaluations) s += search::serialize(e);
    for (const search::Candidate& c : r.simulated)
      s += std::to_string(c.layout) + " " + search::serialize(c.sim);
    for (const search::FamilyVerdict& f : r.families) s += f.family + ": " + f.why + "\n";
    return s;
  };
  CHECK(everything(plan_with(1)) == everything(plan_with(3)));
}
