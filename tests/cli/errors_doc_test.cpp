// docs/errors.md is the catalogue of user-facing errors: every "`stepsim ARGS` prints:" entry is
// run here, and its exit status (2) and exact message must match the catalogue.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/test_support.hpp"

TEST_CASE("Every entry of docs/errors.md prints exactly its documented message and exits 2") {
  const stepsim::test::ChildLeakChecks leaks;  // every error path once, leaks checked
  std::ifstream in(stepsim::test::source_path("docs/errors.md"));
  REQUIRE(in);
  std::string line;
  int entries = 0;
  std::set<std::string> documented;
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
    documented.insert(args);
    const auto r = stepsim::test::run_stepsim(args);
    CHECK(r.status == 2);
    CHECK(r.err == expected);
    ++entries;
  }
  CHECK(entries >= 35);
  // Every bad input file is in the catalogue (tools/errors-doc regenerates it).
  for (const auto& f :
       std::filesystem::directory_iterator(stepsim::test::source_path("tests/cli/bad_inputs"))) {
    const std::string name = f.path().filename().string();
    if (f.path().extension() != ".yaml" || name.find(".cluster.") != std::string::npos) continue;
    CAPTURE(name);
    CHECK(documented.count("check tests/cli/bad_inputs/" + name) == 1);
  }
}
