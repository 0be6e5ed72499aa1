// Shared helpers for tests: paths into the source tree and running the stepsim binary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace stepsim::test {

// Whether this is the sanitizer build (STEPSIM_TEST_SANITIZED), where a simulation costs about
// ten times what it does in the release build. Tests that repeat a simulation many times to
// sample a property repeat it fewer times there: the same code paths, fewer draws. The release
// build runs every draw.
#ifdef STEPSIM_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

inline std::string source_path(const std::string& rel) {
  return std::string(STEPSIM_SOURCE_DIR) + "/" + rel;
}

struct RunResult {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// A small deterministic generator (xorshift64): the same sequence on every platform, for property
// tests that draw random systems.
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 7) {}
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * (next() % 1000000) / 1e6; }
};

// Whether the stepsim processes a test starts end with LeakSanitizer's scan of their heap (their
// ASAN_OPTIONS' detect_leaks). In the sanitizer build the scan costs about 0.2 s a process, most of
// the end-to-end tests' time there, so it is off (test_main.cpp) except inside a ChildLeakChecks
// scope: the tests that run every error path and every command once hold one. The in-process
// tests and the fuzzers check leaks throughout.
void set_child_leak_checks(bool on);
class ChildLeakChecks {
 public:
  ChildLeakChecks() { set_child_leak_checks(true); }
  ~ChildLeakChecks() { set_child_leak_checks(!kSanitized); }
  ChildLeakChecks(const ChildLeakChecks&) = delete;
  ChildLeakChecks& operator=(const ChildLeakChecks&) = delete;
};

// The shipped scenarios (scenarios/*.yaml, full paths), sorted by name. The sanitizer build
// (STEPSIM_TEST_SANITIZED) keeps those that simulate in under 0.2 s in the release build (the
// DeepSeek-V3 ones but context parallelism's, GPT-3's ZeRO-3): the others (GPT-3 interleaved, Llama
// 3, context parallelism) take the same code paths at 3 to 9 times the cost, which the sanitizers
// multiply by about ten. The release build runs every test on all of them.
std::vector<std::string> shipped_scenarios();
// Whether a test loop over named scenarios runs `name` (a stem, e.g. "gpt3-175b-a100") here.
bool shipped_scenario_runs_here(const std::string& name);

// A file's bytes ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);

// Inputs too large to keep as files, for the tests of budgets, signals and limits:
// "15360,15488,...": `n` global batches, distinct, each a valid one for the DualPipe scenario;
std::string many_global_batches(int n);
// a calibration CSV's metadata and header (an H800's GEMMs) when `from` is 0, then measurement
// rows from..to-1 of distinct shapes.
std::string gemm_measurements(int from, int to);

// Runs a shell command line as given (no directory change); its exit status and standard output
// (`err` empty: the command redirects its standard error where it wants).
RunResult run_shell(const std::string& command);

// Runs `stepsim ARGS` (a shell-quoted argument string) in the source directory.
RunResult run_stepsim(const std::string& args);
// The same under a launcher command (e.g. "mpirun -np 2"), which is given the binary's path.
RunResult run_stepsim_under(const std::string& launcher, const std::string& args);
// mpirun with two ranks, as root, on one host, over loopback TCP.
inline constexpr const char* kMpirun2 =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --allow-run-as-root "
    "--oversubscribe -np 2 --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo --mca "
    "oob_tcp_if_include lo";

}  // namespace stepsim::test
