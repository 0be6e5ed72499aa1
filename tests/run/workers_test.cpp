// Work over threads: results in item order whatever the thread count; a failure surfaces.
#include <doctest/doctest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sim/engine/user_error.hpp"
#include "sim/run/workers.hpp"

using namespace stepsim;

TEST_CASE("map returns every item's result in item order, on any number of threads") {
  for (int threads : {1, 2, 7}) {
    run::Workers w(threads);
    CHECK(w.threads() == threads);
    CHECK(w.ranks() == 1);  // not started by an MPI launcher
    const auto out = w.map(
        100, [](std::size_t i, int) { return std::to_string(i * i); }, true, "test");
    REQUIRE(out.size() == 100);
    for (std::size_t i = 0; i < 100; ++i) CHECK(out[i] == std::to_string(i * i));
  }
}

TEST_CASE("an item's exception reaches the caller, the earliest item's first") {
  run::Workers w(3);
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
  run::Workers w(2);
  engine::RunControl control;
  control.deadline = std::chrono::steady_clock::now();  // already past
  control.budget_s = 0.001;
  w.set_control(&control);
  CHECK_THROWS_AS(w.map(
                      10, [](std::size_t, int) { return std::string(); }, true, "test"),
                  engine::Stopped);
}

TEST_CASE("A build without MPI started as several ranks says so instead of running on each") {
  // The tests link the workers built without MPI: the program built with them joins the job
  // (tests/cli run it under mpirun).
  if (stepsim::run::Workers::built_with_mpi()) return;
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  std::string message;
  try {
    stepsim::run::Workers w(1);
  } catch (const stepsim::engine::UserError& e) {
    message = e.message();
  }
  CHECK(message.find("built without MPI, but an MPI launcher started it as 2 ranks") !=
        std::string::npos);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  CHECK_NOTHROW(stepsim::run::Workers(1));
}

TEST_CASE("A command that runs as one process refuses several ranks, in any build") {
  ::setenv("PMI_SIZE", "4", 1);
  ::setenv("PMI_RANK", "0", 1);
  std::string message;
  try {
    stepsim::run::refuse_several_ranks("stepsim run runs as one process", "hint");
  } catch (const stepsim::engine::UserError& e) {
    message = e.message();
  }
  CHECK(message ==
        "stepsim run runs as one process, but an MPI launcher started it as 4 ranks: "
        "each would run the whole job");
  ::setenv("PMI_SIZE", "1", 1);  // one rank (srun -n 1): nothing to refuse
  CHECK_NOTHROW(stepsim::run::refuse_several_ranks("x", "hint"));
  ::unsetenv("PMI_SIZE");
  ::unsetenv("PMI_RANK");
  CHECK_NOTHROW(stepsim::run::refuse_several_ranks("x", "hint"));
}
