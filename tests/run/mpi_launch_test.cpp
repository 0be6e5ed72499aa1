// Whether an MPI launcher started the process, which picks the program the launcher runs.
#include <doctest/doctest.h>

#include <cstdlib>

#include "sim/run/mpi_launch.hpp"

TEST_CASE("An MPI launcher is known by the variable it sets in every rank, whichever it is") {
  const char* vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (const char* v : vars) ::unsetenv(v);
  CHECK_FALSE(stepsim::run::started_by_mpi_launcher());
  for (const char* v : vars) {
    CAPTURE(v);
    ::setenv(v, "0", 1);
    CHECK(stepsim::run::started_by_mpi_launcher());
    ::unsetenv(v);
  }
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);  // a rank without its job's size is not one
  CHECK_FALSE(stepsim::run::started_by_mpi_launcher());
  ::unsetenv("OMPI_COMM_WORLD_RANK");
}
