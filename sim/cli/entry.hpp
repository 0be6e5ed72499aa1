// The whole command line: picks the command, runs it, and turns every way it can end into an
// exit status and one message on `err`:
//   0 success; 1 a simulation that cannot finish (deadlock) or memory exhausted; 2 a user error
//   (bad file, value, option or output path; an estimate above --max-memory; a simulated time
//   beyond the clock; a write error); 3 stopped by --max-wall; 70 an internal error (a bug);
//   128 + N interrupted by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129).
// No output is left by any status but 0. `main` installs the signal handlers and the logger, then
// calls this; the command-line fuzzer calls it directly.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace stepsim::cli {

int run_command_line(const std::vector<std::string>& argv, std::ostream& err);

}  // namespace stepsim::cli
