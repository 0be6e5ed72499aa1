// Replays the fuzzers' regression inputs (tests/fuzz/regressions/) and the hostile files through
// the fuzzed code paths: each must end in a spec or a user error, nothing else.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/fuzz_entry.hpp"
#include "tests/test_support.hpp"

TEST_CASE("Fuzzer regressions and hostile inputs end in a spec or a user error") {
  namespace fs = std::filesystem;
  int replayed = 0;
  for (const char* dir : {"tests/fuzz/regressions", "tests/cli/hostile", "tests/cli/bad_inputs", "scenarios"}) {
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
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    CHECK(stepsim::fuzz::check_scenario(s.str()) == 1);
  }
}
