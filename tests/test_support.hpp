// Shared helpers for tests: paths into the source tree and running the stepsim binary.
#pragma once

#include <string>

namespace stepsim::test {

inline std::string source_path(const std::string& rel) {
  return std::string(STEPSIM_SOURCE_DIR) + "/" + rel;
}

struct RunResult {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `stepsim ARGS` (a shell-quoted argument string) in the source directory.
RunResult run_stepsim(const std::string& args);
// The same under a launcher command (e.g. "mpirun -np 2"), which is given the binary's path.
RunResult run_stepsim_under(const std::string& launcher, const std::string& args);

}  // namespace stepsim::test
