#include "tests/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stepsim::test {

bool shipped_scenario_runs_here(const std::string& name) {
#ifdef STEPSIM_TEST_SANITIZED
  for (const char* light : {"deepseek-v3-1f1b", "deepseek-v3-dualpipe", "deepseek-v3-dualpipev",
                            "deepseek-v3-zero3", "gpt3-175b-zero3-a100"})
    if (name == light) return true;
  return false;
#else
  (void)name;
  return true;
#endif
}

std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(source_path("scenarios")))
    if (e.path().extension() == ".yaml" && shipped_scenario_runs_here(e.path().stem().string()))
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

void set_child_leak_checks(bool on) {
  if (!kSanitized) return;
  const char* now = std::getenv("ASAN_OPTIONS");
  std::string kept;
  std::istringstream in(now ? now : "");
  for (std::string option; std::getline(in, option, ':');)
    if (!option.empty() && option.rfind("detect_leaks=", 0) != 0) kept += option + ":";
  kept += on ? "detect_leaks=1" : "detect_leaks=0";
  setenv("ASAN_OPTIONS", kept.c_str(), 1);
}

RunResult run_stepsim(const std::string& args) {
  return run_stepsim_under("", args);
}

RunResult run_shell(const std::string& command) {
  RunResult r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  while (const std::size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
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

std::string many_global_batches(int n) {
  std::string values;
  for (int i = 0; i < n; ++i) values += (i ? "," : "") + std::to_string(15360 + 128 * i);
  return values;
}

std::string gemm_measurements(int from, int to) {
  std::string text = from > 0
                         ? ""
                         : "# gpu: NVIDIA H800 80GB HBM3\n# date: 2026-12-01\n# clock: sustained\n"
                           "kind,precision,m,n,k,tflops\n";
  for (int i = from; i < to; ++i)
    text += "gemm,fp8," + std::to_string(128 + i) + ",7168,4096,500\n";
  return text;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace stepsim::test
