// Bundling against every flow on its own (run --no-bundle, spec::ScenarioSpec::bundle): a shipped
// scenario's step, fault-free and with faults, is the same either way within 1e-6 relative, and
// the unbundled step does simulate its collectives transfer by transfer (more flows).
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

// The step bundled and unbundled; returns whether unbundling simulated more flows.
bool same_step(spec::ScenarioSpec s) {
  REQUIRE(s.bundle);
  const run::Result bundled = run::simulate_step(s);
  s.bundle = false;
  const run::Result each = run::simulate_step(s);
  CHECK(each.metrics.step_s == doctest::Approx(bundled.metrics.step_s).epsilon(1e-6));
  CHECK(each.metrics.mean.exposed_comm ==
        doctest::Approx(bundled.metrics.mean.exposed_comm).epsilon(1e-6).scale(1.0));
  CHECK(each.build.network_flows >= bundled.build.network_flows);
  return each.build.network_flows > bundled.build.network_flows;
}

}  // namespace

TEST_CASE("Bundled and unbundled steps agree on the shipped scenarios") {
  // The sanitizer build runs DualPipe alone: the same code paths.
  int unbundled = 0;
  for (const std::string& file : test::shipped_scenarios()) {
    if (test::kSanitized && file.find("deepseek-v3-dualpipe.yaml") == std::string::npos) continue;
    CAPTURE(file);
    unbundled += same_step(config::load_scenario(file, {})) ? 1 : 0;
  }
  CHECK(unbundled > 0);  // the flag reached the collectives
}

TEST_CASE("Bundled and unbundled steps agree with a NIC down and with a leaf-spine link down") {
  for (const char* fault : {"faults=[{kind: nic_down, node: 200, nic: 3}]",
                            "faults=[{kind: link_down, plane: 2, leaf: 1, spine: 0}]"}) {
    CAPTURE(fault);
    // The sanitizer build simulates the faulted fabric once (a NIC down reroutes as a link down
    // does); the release build checks both.
    if (test::kSanitized && std::string(fault).find("link_down") != std::string::npos) continue;
    same_step(config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"),
                                    {config::parse_override(fault)}));
  }
}
