// Replays the fuzzers' regression inputs (tests/fuzz/regressions/) and the hostile files through
// the fuzzed code paths: each must end in a spec or a user error, nothing else.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/fuzz/fuzz_entry.hpp"
#include "tests/test_support.hpp"

TEST_CASE("Fuzzer regressions and hostile inputs end in a spec or a user error") {
  namespace fs = std::filesystem;
  int replayed = 0;
  for (const char* dir :
       {"tests/fuzz/regressions", "tests/cli/hostile", "tests/cli/bad_inputs", "scenarios"}) {
    for (const auto& e : fs::directory_iterator(stepsim::test::source_path(dir))) {
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      CAPTURE(e.path().string());
      CHECK_NOTHROW(stepsim::fuzz::load_everything(s.str()));
      CHECK_NOTHROW(stepsim::fuzz::check_scenario(s.str()));
      ++replayed;
    }
  }
  CHECK(replayed > 40);
  // The shipped scenarios are valid through the fuzzed path too.
  for (const auto& e : fs::directory_iterator(stepsim::test::source_path("scenarios"))) {
    if (!e.is_regular_file()) continue;  // software/: the presets scenarios name
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    CHECK(stepsim::fuzz::check_scenario(s.str()) == 1);
  }
}

TEST_CASE(
    "Command-line seeds and regressions end in an exit status other than 70, leaving nothing when "
    "they fail") {
  namespace fs = std::filesystem;
  int replayed = 0;
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(stepsim::test::source_path("tests/fuzz/cli-seeds")))
    inputs.push_back(e.path());
  std::sort(inputs.begin(), inputs.end());
  for (const auto& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    CAPTURE(p.string());
    const int status = stepsim::fuzz::command_line(s.str());  // aborts on a finding
    CHECK(status != 70);
    // Seeds named like the command are valid command lines; "bad-" seeds are refused. The fuzz
    // entry's budgets are of work, not of time (its wall budget is a backstop two orders of
    // magnitude away), so a busy machine or a sanitizer changes no status.
    CHECK((p.filename().string().rfind("bad-", 0) == 0 ? status == 2 : status == 0));
    ++replayed;
  }
  CHECK(replayed >= 9);
}

TEST_CASE("Calibration CSV seeds and the hostile CSVs end in an import or a user error") {
  namespace fs = std::filesystem;
  int replayed = 0, imported = 0;
  for (const char* dir : {"tests/fuzz/calibration-seeds", "tests/cli/hostile"}) {
    for (const auto& e : fs::directory_iterator(stepsim::test::source_path(dir))) {
      if (e.path().extension() != ".csv") continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      CAPTURE(e.path().string());
      int ok = 0;
      CHECK_NOTHROW(ok = stepsim::fuzz::import_calibration_csv(s.str()));
      imported += ok;
      ++replayed;
    }
  }
  CHECK(replayed >= 5);
  CHECK(imported >= 2);  // the seed and the one with a byte-order mark
}
