// Variability in the step (hw/variability.hpp): each symmetry class runs at its slowest GPU's
// pace; the same seed gives the same step, another seed another, no spread today's.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/hw/variability.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

run::Result at(const std::string& seed, const std::string& spread) {
  return run::simulate_step(
      config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"),
                            {config::parse_override("cluster.variability.seed=" + seed),
                             config::parse_override("cluster.variability.gpu_spread=" + spread)}));
}

}  // namespace

TEST_CASE("Variability: same seed, same step; another seed, another; no spread, today's") {
  const auto plain = run::simulate_step(
      config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml")));
  const auto a = at("1", "0.02"), b = at("1", "0.02"), c = at("2", "0.02"), off = at("1", "0");
  CHECK(a.metrics.step_s == b.metrics.step_s);
  CHECK(a.timeline.end == b.timeline.end);  // every op at the same instant
  CHECK(c.metrics.step_s != a.metrics.step_s);
  CHECK(off.metrics.step_s == plain.metrics.step_s);
  CHECK(a.metrics.step_s > plain.metrics.step_s);
  // No slower than if every GPU ran at the fleet's slowest draw.
  spec::VariabilitySpec v{1, 0.02, 0.0, ""};
  double slowest = 1.0;
  for (int g = 0; g < 2048; ++g) slowest = std::max(slowest, hw::gpu_variability(v, g));
  MESSAGE("spread 2 %, seed 1: step " << a.metrics.step_s << " s against " << plain.metrics.step_s
                                      << " s; the slowest of 2048 GPUs x" << slowest);
  CHECK(a.metrics.step_s <= plain.metrics.step_s * slowest * 1.001);
}
