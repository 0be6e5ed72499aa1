// Every registered schedule, checked the same way: its word names it, and the program it builds
// runs each stage's forward and backward of every micro-batch exactly once, on the device that
// device_of and device_stages name.
#include <doctest/doctest.h>

#include <map>

#include "sim/workload/schedule/schedule.hpp"

using namespace stepsim::workload;
using namespace stepsim::spec;

TEST_CASE("The registry lists every schedule once, none first, and words round-trip") {
  const auto& all = all_schedules();
  REQUIRE(all.size() == 7);
  CHECK(Schedule().is_none());
  CHECK(to_string(Schedule()) == "none");
  for (std::size_t i = 0; i < all.size(); ++i) {
    CAPTURE(all[i]->word);
    const Schedule s = schedule_at(i);
    CHECK(&schedule_def(s) == all[i]);
    CHECK(find_schedule(all[i]->word) == all[i]);
    CHECK(schedule_named(all[i]->word) == s);
    CHECK(to_string(s) == all[i]->word);
    const bool has_bubble = all[i]->bubble != nullptr;  // the layout search ranks by it
    REQUIRE(has_bubble);
    CHECK(all[i]->bubble(4, 8, 2) >= 0.0);
  }
  // The ideal bubbles in micro-batches of work (F = dgrad = W): 1F1B p-1, interleaved (p-1)/v.
  CHECK(schedule_def(schedule_named("1f1b")).bubble(8, 16, 1) == 7.0);
  CHECK(schedule_def(schedule_named("interleaved")).bubble(8, 16, 2) == 3.5);
  CHECK(schedule_def(schedule_named("none")).bubble(1, 16, 1) == 0.0);
  CHECK(find_schedule("2f2b") == nullptr);
}

TEST_CASE(
    "Every schedule runs each stage of every micro-batch once, forward and backward, where it "
    "says") {
  for (std::size_t index = 0; index < all_schedules().size(); ++index) {
    const ScheduleDef* def = all_schedules()[index];
    const Schedule schedule = schedule_at(index);
    for (int pp : {1, 2, 4, 8}) {
      if (schedule.is_none() != (pp == 1)) continue;
      const int v = def->uses_virtual_stages ? 2 : 1;
      const int m = 4 * pp;
      if (def->check(pp, m, v)) continue;
      CAPTURE(def->word);
      CAPTURE(pp);
      const PipelineProgram p = build_pipeline(schedule, pp, m, v);
      CHECK(p.stages == def->stages(pp, v));
      std::map<std::pair<int, int>, int> forwards, backwards;  // (stage, mb) -> count
      for (int d = 0; d < pp; ++d) {
        const auto shares = def->device_stages(d, pp, v);
        for (const PipeInstr& i : p.per_device[d]) {
          auto count = [&](const StageTask& t, std::map<std::pair<int, int>, int>& seen) {
            ++seen[{t.stage, t.mb}];
            CHECK(p.device_of(t.stage, t.mb) == d);
            bool listed = false;
            for (const auto& s : shares) listed |= s.stage == t.stage;
            CHECK(listed);
          };
          if (i.op == PipeOp::F || i.op == PipeOp::FB) count(i.a, forwards);
          if (i.op == PipeOp::B || i.op == PipeOp::BW) count(i.a, backwards);
          if (i.op == PipeOp::FB) count(i.b, backwards);
        }
      }
      CHECK(forwards.size() == static_cast<std::size_t>(p.stages * m));
      CHECK(backwards.size() == static_cast<std::size_t>(p.stages * m));
      for (const auto& [k, n] : forwards) CHECK(n == 1);
      for (const auto& [k, n] : backwards) CHECK(n == 1);
      for (int d = 0; d < pp; ++d) CHECK(def->peak_in_flight(pp, m, v, d) >= 1.0);
    }
  }
}
