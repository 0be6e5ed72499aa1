// Every file in tests/cli/bad_inputs/ is a user mistake. Each says what the message must contain
// (`# expect: ...` lines) and where: the line marked `# <-- error`, or `# expect-line: N`.
// stepsim must exit 2 with `file:line:` in its message and leave no output file behind.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using stepsim::test::run_stepsim;
using stepsim::test::source_path;

namespace {

struct Expectation {
  std::vector<std::string> texts;
  int line = -1;
};

Expectation read_expectation(const fs::path& file) {
  Expectation e;
  std::ifstream in(file);
  std::string l;
  for (int n = 1; std::getline(in, l); ++n) {
    if (l.rfind("# expect: ", 0) == 0) e.texts.push_back(l.substr(10));
    if (l.rfind("# expect-line: ", 0) == 0) e.line = std::stoi(l.substr(15));
    if (l.find("# <-- error") != std::string::npos) e.line = n;
  }
  return e;
}

}  // namespace

TEST_CASE("Bad inputs: exit 2, one message at file:line, no output file") {
  const fs::path dir = source_path("tests/cli/bad_inputs");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".yaml" &&
        entry.path().string().find(".cluster.") == std::string::npos)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  CHECK(files.size() >= 20);

  const fs::path out_dir = fs::temp_directory_path() / "stepsim_bad_inputs_test";
  fs::create_directories(out_dir);
  for (const auto& f : files) {
    const std::string rel = "tests/cli/bad_inputs/" + f.filename().string();
    CAPTURE(rel);
    const Expectation e = read_expectation(f);
    REQUIRE(!e.texts.empty());
    REQUIRE(e.line >= 0);
    const fs::path out = out_dir / (f.stem().string() + ".json");
    fs::remove(out);
    const auto r = run_stepsim("roofline '" + rel + "' --json --output '" + out.string() + "'");
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_FALSE(fs::exists(out));
    const std::string where = rel + ":" + std::to_string(e.line) + (e.line > 0 ? ":" : "");
    CHECK(r.err.rfind(where, 0) == 0);
    for (const auto& t : e.texts) CHECK(r.err.find(t) != std::string::npos);
    // One message: the error line and at most one hint.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= 2);
    // `check` finds the same mistake.
    const auto c = run_stepsim("check '" + rel + "'");
    CHECK(c.status == 2);
    CHECK(c.err.rfind(where, 0) == 0);
  }
  fs::remove_all(out_dir);
}

TEST_CASE("Bad command-line overrides are reported against the --set") {
  auto r = run_stepsim(
      "roofline scenarios/deepseek-v3-dualpipe.yaml --set cluster.nvlink.bandwidth=fast");
  CHECK(r.status == 2);
  CHECK(r.err.find("--set cluster.nvlink.bandwidth=fast: error:") == 0);
  r = run_stepsim("roofline scenarios/deepseek-v3-dualpipe.yaml --set parallelism.shedule=1f1b");
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown key 'shedule'") != std::string::npos);
  CHECK(r.err.find("did you mean 'schedule'") != std::string::npos);
  r = run_stepsim("roofline scenarios/deepseek-v3-dualpipe.yaml --set novalue");
  CHECK(r.status == 2);
  r = run_stepsim("roofline no/such/scenario.yaml");
  CHECK(r.status == 2);
  CHECK(r.err.find("no/such/scenario.yaml: error: cannot read file") == 0);
  r = run_stepsim("roofline --bogus-option");
  CHECK(r.status == 2);
  r = run_stepsim("frobnicate");
  CHECK(r.status == 2);
}

TEST_CASE("Hostile sizes are refused, not overflowed or allocated") {
  const std::string s = "roofline scenarios/deepseek-v3-dualpipe.yaml ";
  auto r = run_stepsim(s + "--set parallelism.pp=65536 --set parallelism.tp=65536");
  CHECK(r.status == 2);
  r = run_stepsim(s + "--set model.layers=1000000000");
  CHECK(r.status == 2);
  CHECK(r.err.find("out of range") != std::string::npos);
  r = run_stepsim(
      s + "--set parallelism.schedule=interleaved --set parallelism.virtual_stages=8388608");
  CHECK(r.status == 2);
  r = run_stepsim(s + "--set cluster.device.compute.fp8.peak=1e300EFLOP/s");
  CHECK(r.status == 2);
  CHECK(r.err.find("too large") != std::string::npos);
  r = run_stepsim("roofline scenarios");
  CHECK(r.status == 2);
  CHECK(r.err.find("it is a directory") != std::string::npos);
  r = run_stepsim(
      "roofline scenarios/deepseek-v3-dualpipe.yaml --set model=../models/deepseek-v3.config.json "
      "--set model.hidden=5");
  CHECK(r.status == 2);
  CHECK(r.err.find("'hidden' is not read from scenarios/../models/deepseek-v3.config.json") !=
        std::string::npos);
}
