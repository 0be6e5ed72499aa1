#include "tests/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace stepsim::test {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

RunResult run_stepsim(const std::string& args) {
  return run_stepsim_under("", args);
}

RunResult run_stepsim_under(const std::string& launcher, const std::string& args) {
  char out_tmpl[] = "/tmp/stepsim_test_out_XXXXXX";
  char err_tmpl[] = "/tmp/stepsim_test_err_XXXXXX";
  const int fo = mkstemp(out_tmpl);
  const int fe = mkstemp(err_tmpl);
  if (fo >= 0) close(fo);
  if (fe >= 0) close(fe);
  const std::string cmd = std::string("cd '") + STEPSIM_SOURCE_DIR + "' && " + launcher + " '" +
                          STEPSIM_BINARY + "' " + args + " >" + out_tmpl + " 2>" + err_tmpl +
                          " </dev/null";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out_tmpl);
  r.err = slurp(err_tmpl);
  std::remove(out_tmpl);
  std::remove(err_tmpl);
  return r;
}

}  // namespace stepsim::test
