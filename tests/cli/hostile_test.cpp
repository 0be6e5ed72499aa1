// Hostile inputs and runaway runs: refused quickly with a clear message, or stopped cleanly,
// never a crash, a hang or a partial output file.
#include <doctest/doctest.h>
#include <signal.h>

#include <sys/wait.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using stepsim::test::run_stepsim;

namespace {

struct Timed {
  stepsim::test::RunResult r;
  double seconds;
};

Timed timed(const std::string& args) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_stepsim(args);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() / "stepsim_hostile_test";
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("A billion-laughs document is refused before it expands") {
  const auto t = timed("check tests/cli/hostile/billion-laughs.yaml");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("tests/cli/hostile/billion-laughs.yaml:") == 0);
  CHECK(t.r.err.find("expands to more than 1,000,000 values") != std::string::npos);
  CHECK(t.seconds < 10.0);  // generous: it is refused in milliseconds
}

TEST_CASE("Huge files and huge scalars are refused") {
  const fs::path dir = scratch();
  {
    std::ofstream big(dir / "big.yaml");
    big << "name: \"";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 100; ++i) big << chunk;  // a 100 MB scalar
    big << "\"\n";
  }
  auto t = timed("check '" + (dir / "big.yaml").string() + "'");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("larger than 16 MiB") != std::string::npos);
  {
    std::ofstream two(dir / "two.yaml");
    two << "name: \"" << std::string(2 << 20, 'y') << "\"\n";  // 2 MB: under the file limit
  }
  t = timed("check '" + (dir / "two.yaml").string() + "'");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("exceeds the limit") != std::string::npos);
  {
    std::ofstream deep(dir / "deep.yaml");
    deep << "name: " << std::string(200, '[') << std::string(200, ']') << "\n";
  }
  t = timed("check '" + (dir / "deep.yaml").string() + "'");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("nests deeper") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("10^9 micro-batches and oversized traces are refused before simulating") {
  const fs::path out = scratch() / "trace.json";
  // dp = 128: 128e9 sequences are 10^9 micro-batches per pipeline.
  auto t =
      timed("run scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=128000000000");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("simulated operations") != std::string::npos);
  CHECK(t.r.err.find("--max-ops") != std::string::npos);
  CHECK(t.seconds < 10.0);
  t = timed(
      "run scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=153600 "
      "--max-trace-events 100000 --trace '" +
      out.string() + "'");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("--trace-ranks") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  CHECK(t.seconds < 10.0);
}

TEST_CASE("--max-wall stops a long run with exit 3; SIGINT stops it cleanly; no output is left") {
  const fs::path dir = scratch();
  const std::string report = (dir / "report.json").string();
  const std::string long_run =
      "run scenarios/deepseek-v3-dualpipe.yaml --set training.global_batch=640000 --report '" +
      report + "'";
  auto t = timed(long_run + " --max-wall 0.2");
  CHECK(t.r.status == 3);
  CHECK(t.r.err.find("--max-wall") != std::string::npos);
  CHECK_FALSE(fs::exists(report));
  // SIGINT 0.3 s after stepsim has installed its handler (the launcher returns stepsim's own
  // status).
  const std::string cmd = "cd '" + std::string(STEPSIM_SOURCE_DIR) + "' && '" + STEPSIM_SOURCE_DIR +
                          "/tests/cli/hostile/signal-when-ready' INT 0.3 '" + STEPSIM_BINARY +
                          "' " + long_run + " >/dev/null 2>&1";
  const int raw = std::system(cmd.c_str());
  CHECK(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 128 + SIGINT);
  CHECK_FALSE(fs::exists(report));
  fs::remove_all(dir);
}

TEST_CASE("A write error (file size limit reached) exits 2 with a message and leaves no output") {
  const fs::path dir = scratch();
  const std::string report = (dir / "r.json").string(), trace = (dir / "t.json").string();
  // 1 MB file size limit with SIGXFSZ ignored: writing the 20 MB trace fails with EFBIG.
  const std::string cmd = "cd '" + std::string(STEPSIM_SOURCE_DIR) +
                          "' && ulimit -f 1000 && trap '' XFSZ && '" + STEPSIM_BINARY +
                          "' run scenarios/deepseek-v3-dualpipe.yaml --report '" + report +
                          "' --trace '" + trace + "' >/dev/null 2>'" + (dir / "err").string() + "'";
  const int raw = std::system(("bash -c \"" + cmd + "\"").c_str());
  CHECK(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 2);
  std::ifstream in(dir / "err");
  std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(err.find("write failed: File too large") != std::string::npos);
  fs::remove(dir / "err");
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("--max-wall holds while a sweep checks its values and while a calibration CSV is read") {
  const fs::path dir = scratch();
  const std::string out = (dir / "out.csv").string();
  // 15,000 values, each checked as a whole scenario before any point runs.
  const std::string values = stepsim::test::many_global_batches(15000);
  auto t =
      timed("sweep scenarios/deepseek-v3-dualpipe.yaml --vary training.global_batch=" + values +
            " --max-wall 0.5 --csv -o '" + out + "'");
  CHECK(t.r.status == 3);
  CHECK(t.r.err.find("--max-wall") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  CHECK(t.seconds < 10.0);
  // 9,000 distinct measurements: read, checked and assembled line by line under the budget.
  const std::string csv = (dir / "many.csv").string(), device = (dir / "d.yaml").string();
  std::ofstream(csv) << stepsim::test::gemm_measurements(0, 9000);
  t = timed("calibrate import '" + csv + "' --device topologies/h800.yaml -o '" + device +
            "' --max-wall 0.05");
  CHECK(t.r.status == 3);
  CHECK_FALSE(fs::exists(device));
  CHECK(t.seconds < 10.0);
  // Beyond the stated limits: refused at the line, or for the file's size, naming the CSV.
  std::ofstream(csv, std::ios::app) << stepsim::test::gemm_measurements(9000, 10001);
  t = timed("calibrate import '" + csv + "' --device topologies/h800.yaml -o '" + device + "'");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("many.csv:10005: error: more than 10000 measurements") != std::string::npos);
  {
    std::ofstream c(csv, std::ios::app);
    c << std::string(17 << 20, '#') << "\n";
  }
  t = timed("calibrate import '" + csv + "' --device topologies/h800.yaml -o '" + device + "'");
  CHECK(t.r.status == 2);
  CHECK(t.r.err.find("many.csv: error: the CSV holds") != std::string::npos);
  CHECK_FALSE(fs::exists(device));
  fs::remove_all(dir);
}
