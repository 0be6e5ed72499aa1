// Whether an MPI launcher started this process: Open MPI's mpirun, or a PMI/PMIx launcher such as
// srun (each sets one of these variables in every rank's environment). Header-only: the `stepsim`
// launcher (cli/launcher.cpp), which links none of the program's libraries, asks it to choose
// the program built with MPI; the workers (workers.hpp) ask it to join the job or refuse it.
#pragma once

#include <cstdlib>

namespace stepsim::run {

inline bool started_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace stepsim::run
