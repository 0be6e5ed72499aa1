// docs/errors.md is the catalogue of user-facing errors: every "`stepsim ARGS` prints:" entry is
// run here, and its exit status (2) and exact message must match the catalogue.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tests/test_support.hpp"

TEST_CASE("Every entry of docs/errors.md prints exactly its documented message and exits 2") {
  std::ifstream in(stepsim::test::source_path("docs/errors.md"));
  REQUIRE(in);
  std::string line;
  int entries = 0;
  while (std::getline(in, line)) {
    const std::string lead = "`stepsim ", tail = "` prints:";
    if (line.rfind(lead, 0) != 0 || line.size() < lead.size() + tail.size() ||
        line.compare(line.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string args = line.substr(lead.size(), line.size() - lead.size() - tail.size());
    std::string expected, l;
    std::getline(in, l);  // blank
    std::getline(in, l);  // ```
    while (std::getline(in, l) && l != "```") expected += l + "\n";
    CAPTURE(args);
    const auto r = stepsim::test::run_stepsim(args);
    CHECK(r.status == 2);
    CHECK(r.err == expected);
    ++entries;
  }
  CHECK(entries >= 35);
}
