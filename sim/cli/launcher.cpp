// The `stepsim` executable users run: a launcher that asks glibc for transparent huge pages and
// hands over to the program proper, `libexec/stepsim` beside it (same process: execv, so signals,
// the exit status and the process id are the program's own). Started by an MPI launcher, in a
// build with MPI, it hands over to `libexec/stepsim-mpi` instead, the same program whose workers
// join the job: Open MPI's libraries (libmpi and the eight it loads) take about 2 ms to load,
// half of a small command's time, so the program that runs alone links none of them.
//
// glibc's allocator gives its heap and large blocks madvise(MADV_HUGEPAGE) when the tunable
// `glibc.malloc.hugetlb=1` is set (glibc manual, "Memory Allocation Tunables"; huge_pages.hpp
// says what it buys), and tunables are read only when a process starts, from GLIBC_TUNABLES. A
// program that re-executed itself with the tunable set would load its shared libraries (Open MPI
// and those it loads, spdlog, fmt) twice, about 6 ms a run; this launcher loads the C runtime
// alone (the C++ one linked in), so the program's libraries load once. The user's GLIBC_TUNABLES
// wins where it names the tunable. Exit status 127, as a shell's, where the program cannot be
// executed. The stepsim target builds the launcher and the program that runs alone (all that
// tools/run builds); the MPI program comes with a build of every target, or of its own.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/cli/huge_pages.hpp"
#include "sim/run/mpi_launch.hpp"

int main(int, char** argv) {
  // Beside this executable: found by /proc/self/exe, else by the path it was started by.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path =
      n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string(argv[0] ? argv[0] : "");
#ifdef STEPSIM_MPI_PROGRAM
  const bool mpi = stepsim::run::started_by_mpi_launcher();
#else
  const bool mpi = false;
#endif
  const std::string dir = path.substr(0, path.rfind('/') + 1);
  const std::string program = dir + (mpi ? "libexec/stepsim-mpi" : "libexec/stepsim");
  if (stepsim::cli::allocator_is_glibc()) {
    if (const auto t = stepsim::cli::tunables_with_huge_pages(std::getenv("GLIBC_TUNABLES")))
      setenv("GLIBC_TUNABLES", t->c_str(), 1);
  }
  execv(program.c_str(), argv);
  const int err = errno;
  const std::string hint =
      mpi ? "build it: cmake --build " + (dir.empty() ? "." : dir.substr(0, dir.size() - 1)) +
                " --target stepsim_program_mpi (tools/run builds only the program that runs "
                "alone; tools/test builds every target)"
          : "it is built beside this launcher (the stepsim target builds both)";
  std::fprintf(stderr, "%s: error: cannot run the %sprogram: %s\n  hint: %s\n", program.c_str(),
               mpi ? "MPI " : "", std::strerror(err), hint.c_str());
  return 127;
}
