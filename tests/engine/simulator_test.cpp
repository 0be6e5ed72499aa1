#include "sim/engine/simulator.hpp"
#include "sim/engine/check.hpp"

#include <doctest/doctest.h>

#include <atomic>

using namespace stepsim::engine;

namespace {

// Records when it fired; optionally reschedules itself `repeat` times, `step` apart.
struct Recorder final : EventHandler {
  std::vector<std::pair<Time, std::uint64_t>> fired;
  int repeat = 0;
  Time step = Time::us(1);
  void on_event(Simulator& sim, std::uint64_t tag) override {
    fired.push_back({sim.now(), tag});
    if (repeat-- > 0) sim.after(step, this, tag + 1);
  }
};

}  // namespace

TEST_CASE("The clock advances to each event; handlers schedule more") {
  Simulator sim;
  Recorder r;
  r.repeat = 3;
  sim.at(Time::us(5), &r, 0);
  const RunStats s = sim.run();
  CHECK(s.outcome == RunOutcome::drained);
  CHECK(s.events == 4);
  CHECK(s.end == Time::us(8));
  REQUIRE(r.fired.size() == 4);
  CHECK(r.fired[3] == std::make_pair(Time::us(8), std::uint64_t{3}));
}

TEST_CASE("Event budget and time limit stop the run with events left") {
  Simulator sim;
  Recorder r;
  r.repeat = 100;
  sim.at(Time(), &r, 0);
  RunLimits lim;
  lim.max_events = 10;
  RunStats s = sim.run(lim);
  CHECK(s.outcome == RunOutcome::event_budget);
  CHECK(s.events == 10);
  CHECK_THROWS_WITH_AS(require_finished(s, {}), doctest::Contains("event budget exhausted"),
                       SimulationError);
  lim = {};
  lim.until = Time::us(20);
  s = sim.run(lim);
  CHECK(s.outcome == RunOutcome::time_limit);
  CHECK(sim.now() == Time::us(20));
  CHECK(sim.pending() == 1);
}

TEST_CASE("Cancelled events do not run") {
  Simulator sim;
  Recorder r;
  sim.at(Time::us(1), &r, 1);
  const EventId id = sim.at(Time::us(2), &r, 2);
  sim.at(Time::us(3), &r, 3);
  CHECK(sim.cancel(id));
  sim.run();
  REQUIRE(r.fired.size() == 2);
  CHECK(r.fired[1].second == 3);
}

TEST_CASE("A drained run with work outstanding is a deadlock naming the stuck items") {
  Simulator sim;
  const RunStats s = sim.run();
  CHECK_NOTHROW(require_finished(s, {}));
  CHECK_THROWS_WITH_AS(
      require_finished(s, {"rank 3: recv mb 7 from stage 2", "rank 4: F mb 7"}),
      doctest::Contains("2 item(s) still waiting: rank 3: recv mb 7 from stage 2, rank 4: F mb 7"),
      SimulationError);
}

TEST_CASE("Scheduling in the past is an internal error") {
  Simulator sim;
  Recorder r;
  sim.at(Time::us(5), &r);
  sim.run();
  CHECK_THROWS_AS(sim.at(Time::us(1), &r), InternalError);
}

TEST_CASE("A handler's heavy event checks the run's control at once, not at the 4,096th event") {
  std::atomic<bool> stop{false};
  RunControl control;
  control.interrupted = &stop;
  struct Heavy final : EventHandler {
    std::atomic<bool>* stop = nullptr;
    int ran = 0;
    void on_event(Simulator& sim, std::uint64_t) override {
      ++ran;
      stop->store(true);  // a signal arrives during the event's work
      sim.check_control();
    }
  } heavy;
  heavy.stop = &stop;
  Simulator sim;
  sim.at(Time::us(1), &heavy);
  sim.at(Time::us(2), &heavy);
  RunLimits limits;
  limits.control = &control;
  CHECK_THROWS_AS(sim.run(limits), Stopped);
  CHECK(heavy.ran == 1);
  // Outside run() there is no control to check, even after a run that threw.
  CHECK_NOTHROW(sim.check_control());
}
