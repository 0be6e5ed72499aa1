// End-to-end: stepsim whatif, its JSON (terms that sum to the step) and its errors.
#include <doctest/doctest.h>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("whatif --json: the bound plus every term is the simulated step, which run reports") {
  const stepsim::test::ChildLeakChecks leaks;  // whatif once, leaks checked
  const std::string name = "gpt3-175b-zero3-a100";
  if (!stepsim::test::shipped_scenario_runs_here(name)) return;
  const std::string file = stepsim::test::source_path("scenarios/" + name + ".yaml");
  const auto r = run_stepsim("whatif " + file + " --json");
  REQUIRE(r.status == 0);
  const auto j = stepsim::test::parse_json(r.out);
  double sum = j["bound_s"].get<double>();
  bool mechanisms = false;
  for (const auto& t : j["terms"]) {
    sum += t["seconds"].get<double>();
    mechanisms = mechanisms || (t["term"] == "communication" && t["active"].get<bool>());
  }
  CHECK(mechanisms);
  CHECK(sum == doctest::Approx(j["step_time_s"].get<double>()).epsilon(1e-9));
  const auto run = stepsim::test::parse_json(run_stepsim("run " + file + " --json").out);
  CHECK(j["step_time_s"].get<double>() == doctest::Approx(run["step_time_s"].get<double>()));
  CHECK(j["attribution"] == "pairwise");  // six mechanisms: more than the exact default's five
}

TEST_CASE("whatif refuses an unknown scheme and a second scenario, exit 2") {
  const std::string file = stepsim::test::source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const auto bad = run_stepsim("whatif " + file + " --attribution banzhaf");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("unknown attribution scheme 'banzhaf'") != std::string::npos);
  CHECK(bad.err.find("shapley or pairwise") != std::string::npos);
  const auto big = run_stepsim("whatif " + file + " --max-memory 1MiB");
  CHECK(big.status == 2);
  CHECK(big.err.find("simulating this step would need about") != std::string::npos);
  const auto two = run_stepsim("whatif " + file + " " + file);
  CHECK(two.status == 2);
  CHECK(two.err.find("whatif takes one scenario") != std::string::npos);
}
