// The stepsim launcher (sim/cli/launcher.cpp), copied beside a stand-in for the program that
// prints the GLIBC_TUNABLES it was given and its arguments.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using stepsim::test::run_shell;

namespace {

// Tunables the launcher adds: none where AddressSanitizer's allocator replaces glibc's.
std::string added(const std::string& user) {
  if (stepsim::test::kSanitized) return user;
  return user.empty() ? "glibc.malloc.hugetlb=1" : user + ":glibc.malloc.hugetlb=1";
}

}  // namespace

TEST_CASE(
    "The launcher runs libexec/stepsim beside it with its arguments and the huge-page tunable") {
  const fs::path dir = fs::temp_directory_path() / "stepsim_launcher_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "libexec");
  fs::copy_file(STEPSIM_BINARY, dir / "stepsim");
  const fs::path program = dir / "libexec" / "stepsim";
  std::ofstream(program) << "#!/bin/sh\nprintf '%s|' \"$GLIBC_TUNABLES\" \"$@\"\nexit 7\n";
  fs::permissions(program, fs::perms::owner_all);
  const std::string launcher = "'" + (dir / "stepsim").string() + "'";

  auto r = run_shell("env -u GLIBC_TUNABLES " + launcher + " run 'a b' '' 2>&1");
  CHECK(r.status == 7);  // the program's status: it replaced the launcher
  CHECK(r.out == added("") + "|run|a b||");
  // The user's tunables are kept, the huge-page one after them; one the user set wins.
  r = run_shell("env GLIBC_TUNABLES=glibc.malloc.arena_max=2 " + launcher + " --help 2>&1");
  CHECK(r.out == added("glibc.malloc.arena_max=2") + "|--help|");
  r = run_shell("env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 " + launcher + " 2>&1");
  CHECK(r.out == "glibc.malloc.hugetlb=0|");

  // Without the program: one message naming it, the shell's status for a command not run.
  fs::remove(program);
  r = run_shell(launcher + " --help 2>&1");
  CHECK(r.status == 127);
  CHECK(r.out == program.string() +
                     ": error: cannot run the program: No such file or directory\n  hint: it is "
                     "built beside this launcher (the stepsim target builds both)\n");
  fs::remove_all(dir);
}

TEST_CASE(
    "Under an MPI launcher it runs libexec/stepsim-mpi, and says how to build it if missing") {
#ifdef STEPSIM_TEST_MPI
  constexpr bool with_mpi = true;
#else
  constexpr bool with_mpi = false;  // the build has one program, whatever launched it
#endif
  const fs::path dir = fs::temp_directory_path() / "stepsim_launcher_mpi_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "libexec");
  fs::copy_file(STEPSIM_BINARY, dir / "stepsim");
  for (const char* name : {"stepsim", "stepsim-mpi"}) {
    const fs::path program = dir / "libexec" / name;
    std::ofstream(program) << "#!/bin/sh\nprintf '%s|' " << name << " \"$@\"\n";
    fs::permissions(program, fs::perms::owner_all);
  }
  const std::string launcher = "'" + (dir / "stepsim").string() + "'";
  const std::string mpi_env = "env OMPI_COMM_WORLD_SIZE=2 ";
  auto r = run_shell(mpi_env + launcher + " sweep x 2>&1");
  CHECK(r.status == 0);
  CHECK(r.out == (with_mpi ? "stepsim-mpi|sweep|x|" : "stepsim|sweep|x|"));
  r = run_shell("env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK -u PMI_SIZE " + launcher +
                " sweep 2>&1");
  CHECK(r.out == "stepsim|sweep|");

  // A build of the stepsim target alone (tools/run) has no MPI program: the message says how to
  // build it, in the launcher's own build folder.
  fs::remove(dir / "libexec" / "stepsim-mpi");
  r = run_shell(mpi_env + launcher + " sweep 2>&1");
  if (with_mpi) {
    CHECK(r.status == 127);
    CHECK(r.out == (dir / "libexec" / "stepsim-mpi").string() +
                       ": error: cannot run the MPI program: No such file or directory\n  hint: "
                       "build it: cmake --build " +
                       dir.string() +
                       " --target stepsim_program_mpi (tools/run builds only the program that "
                       "runs alone; tools/test builds every target)\n");
  } else {
    CHECK(r.out == "stepsim|sweep|");
  }
  fs::remove_all(dir);
}
