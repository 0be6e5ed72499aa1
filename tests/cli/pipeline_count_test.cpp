// Every command that simulates runs the pipeline's stages (run/pipeline.hpp): each simulated
// scenario is estimated once and its step program built once, however many views of it the
// command prints (roofline, metrics, reports, traces).
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "sim/cli/entry.hpp"
#include "sim/run/estimates.hpp"
#include "sim/workload/step_program.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

struct Counted {
  int status = -1;
  long long estimates = 0, programs = 0;
  std::string err;
};

// Runs `stepsim ARGS...` in this process (output to files under `dir`), counting the estimates
// and programs it made.
Counted count(std::vector<std::string> args) {
  const long long e0 = run::estimates_made(), p0 = workload::programs_built();
  args.insert(args.begin(), "stepsim");
  std::ostringstream err;
  Counted c;
  c.status = cli::run_command_line(args, err);
  c.err = err.str();
  c.estimates = run::estimates_made() - e0;
  c.programs = workload::programs_built() - p0;
  return c;
}

}  // namespace

// A count, not a memory property: the release build alone (each command's code paths run sanitized
// in its own test).
#ifndef STEPSIM_TEST_SANITIZED
TEST_CASE("A simulated scenario is estimated once and its program built once, in every command") {
  const auto dir = std::filesystem::temp_directory_path() / "stepsim-pipeline-count";
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string();
  const std::string dual = test::source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const std::string dualv = test::source_path("scenarios/deepseek-v3-dualpipev.yaml");
  const std::string z3 = test::source_path("scenarios/deepseek-v3-zero3.yaml");
  struct Case {
    std::vector<std::string> args;
    long long prepared;  // steps simulated, or (roofline, check) bounded
  };
  const std::vector<Case> cases = {
      {{"run", dual, "-o", out}, 1},
      {{"run", dual, "--json", "-o", out, "--report", out + ".json", "--trace", out + ".trace",
        "--trace-ranks", "0", "--svg", out + ".svg"},
       1},
      {{"compare", dual, dualv, z3, "-o", out}, 3},
      {{"roofline", dual, dualv, "-o", out}, 2},
      {{"report", dualv, z3, "-o", out + ".html"}, 2},
      {{"run", z3, "--with", z3, "-o", out}, 2},
      {{"stress", dualv, "--fault", "nic_down:1", "--trials", "3", "-o", out}, 4},  // + baseline
      {{"sweep", dualv, "--vary", "training.micro_batch=1,2", "-o", out}, 2},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const std::string& a : c.args) line += a + " ";
    INFO(line);
    const Counted n = count(c.args);
    REQUIRE_MESSAGE(n.status == 0, n.err);
    CHECK(n.estimates == c.prepared);
    CHECK(n.programs == c.prepared);
  }
  // A layout search bounds thousands of layouts without a program, then simulates its best.
  const Counted plan = count({"plan", test::source_path("models/mixtral-8x22b.yaml"),
                              test::source_path("topologies/h800-4x8.yaml"), "--global-batch", "64",
                              "--seq", "2048", "--top", "2", "-o", out});
  REQUIRE_MESSAGE(plan.status == 0, plan.err);
  const std::string text = test::slurp(out);
  const auto at = text.find("\nsimulated ");
  REQUIRE(at != std::string::npos);
  const long long simulated = std::stoll(text.substr(at + 11));
  CHECK(simulated > 2);
  CHECK(plan.estimates == simulated);
  CHECK(plan.programs == simulated);
  std::filesystem::remove_all(dir);
}

#endif

TEST_CASE("A refused step builds no program") {
  // The estimate refuses it before anything large is built.
  const Counted n =
      count({"run", test::source_path("scenarios/deepseek-v3-dualpipe.yaml"), "--max-ops", "1000"});
  CHECK(n.status == 2);
  CHECK(n.err.find("simulated operations") != std::string::npos);
  CHECK(n.estimates == 1);
  CHECK(n.programs == 0);
}
