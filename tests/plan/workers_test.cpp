// Work over threads: results in item order whatever the thread count; a failure surfaces.
#include <doctest/doctest.h>

#include <stdexcept>

#include "sim/plan/workers.hpp"

using namespace stepsim;

TEST_CASE("map returns every item's result in item order, on any number of threads") {
  for (int threads : {1, 2, 7}) {
    plan::Workers w(threads);
    CHECK(w.threads() == threads);
    CHECK(w.ranks() == 1);  // not started by an MPI launcher
    const auto out = w.map(
        100, [](std::size_t i, int) { return std::to_string(i * i); }, true, "test");
    REQUIRE(out.size() == 100);
    for (std::size_t i = 0; i < 100; ++i) CHECK(out[i] == std::to_string(i * i));
  }
}

TEST_CASE("an item's exception reaches the caller, the earliest item's first") {
  plan::Workers w(3);
  CHECK_THROWS_WITH_AS(w.map(
                           50,
                           [](std::size_t i, int) -> std::string {
                             if (i == 17) throw std::runtime_error("item 17");
                             return "";
                           },
                           true, "test"),
                       "item 17", std::runtime_error);
}

TEST_CASE("a stopped run stops the map") {
  plan::Workers w(2);
  engine::RunControl control;
  control.deadline = std::chrono::steady_clock::now();  // already past
  control.budget_s = 0.001;
  w.set_control(&control);
  CHECK_THROWS_AS(w.map(
                      10, [](std::size_t, int) { return std::string(); }, true, "test"),
                  engine::Stopped);
}
