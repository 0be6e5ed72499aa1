// Property: quantities anywhere within the ranges the loaders accept never take a shipped
// scenario's step beyond the simulated clock (int64 picoseconds, 106 days). Random rates,
// latencies and fault factors, drawn log-uniformly inside those ranges, are applied to every
// shipped scenario and simulated; every run must finish with a finite, positive step time.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "sim/config/load.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/spec/precision.hpp"
#include "tests/test_support.hpp"

namespace {

using stepsim::config::Override;
using stepsim::config::parse_override;

double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}

std::string num(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// Overrides for one draw; `corner` puts every quantity at its slowest end instead.
std::vector<Override> draw(std::mt19937_64& rng, const stepsim::spec::ScenarioSpec& base,
                           bool corner) {
  std::vector<std::string> sets;
  auto pick = [&](double lo, double hi, bool slow_is_high) {
    return corner ? (slow_is_high ? hi : lo) : log_uniform(rng, lo, hi);
  };
  const double nvlink = pick(1e8, 1e15, false);
  sets.push_back("cluster.nvlink.bandwidth=" + num(nvlink) + "B/s");
  sets.push_back("cluster.nvlink.peak=" + num(nvlink) + "B/s");
  sets.push_back("cluster.nvlink.latency=" + num(pick(1e-12, 1e-3, true)) + "s");
  // The NVLS and DeepEP rates, at most the link's and within the accepted range (1e8 B/s up).
  const double least = std::max(0.01, 1e8 / nvlink);
  if (base.cluster.nvls_bandwidth > 0.0)
    sets.push_back("cluster.nvlink.nvls=" + num(nvlink * pick(least, 1.0, false)) + "B/s");
  if (base.cluster.deepep_nvlink_bandwidth > 0.0)
    sets.push_back("cluster.deepep.nvlink=" + num(nvlink * pick(least, 1.0, false)) + "B/s");
  const bool fabric = base.cluster.fabric.kind != stepsim::spec::FabricKind::none;
  if (fabric) {
    const double nic = pick(1e8, 1e15, false);
    sets.push_back("cluster.fabric.nic.bandwidth=" + num(nic) + "B/s");
    sets.push_back("cluster.fabric.nic.peak=" + num(nic) + "B/s");
    sets.push_back("cluster.fabric.nic.latency=" + num(pick(1e-12, 1e-3, true)) + "s");
  }
  // The device's rates are drawn: its measured tables (bounded by the shipped peaks) go, and
  // every kernel runs at the drawn achievable rate and bandwidth.
  sets.push_back("cluster.device.kernel_tables=[]");
  sets.push_back("cluster.device.memory.bandwidth=" + num(pick(1e10, 1e15, false)) + "B/s");
  sets.push_back("cluster.device.launch_overhead=" + num(pick(1e-12, 1e-3, true)) + "s");
  for (int i = 0; i < stepsim::spec::kPrecisionCount; ++i) {
    const auto p = static_cast<stepsim::spec::Precision>(i);
    if (!base.cluster.device.supports(p)) continue;
    const double a = pick(1e12, 1e18, false);
    const std::string key = "cluster.device.compute." + std::string(stepsim::spec::to_string(p));
    sets.push_back(key + ".achievable=" + num(a) + "FLOP/s");
    sets.push_back(key + ".peak=" + num(a) + "FLOP/s");
  }
  const int faults = corner ? 2 : std::uniform_int_distribution<int>(0, 2)(rng);
  std::string list = "faults=[";
  for (int f = 0; f < faults; ++f) {
    if (f) list += ", ";
    const int gpu =
        corner ? 0 : std::uniform_int_distribution<int>(0, base.cluster.world_size() - 1)(rng);
    if (f == 0)
      list += "{kind: straggler, gpu: " + std::to_string(gpu) +
              ", slowdown: " + num(pick(1.0, 100.0, true)) + "}";
    else if (fabric)
      list += "{kind: nic_degrade, node: " + std::to_string(gpu / base.cluster.gpus_per_node) +
              ", nic: " + std::to_string(gpu % base.cluster.gpus_per_node) +
              ", factor: " + num(pick(0.01, 1.0, false)) + "}";
    else
      list += "{kind: nvlink_degrade, gpu: " + std::to_string(gpu) +
              ", factor: " + num(pick(0.01, 1.0, false)) + "}";
  }
  sets.push_back(list + "]");
  std::vector<Override> out;
  for (const auto& s : sets) out.push_back(parse_override(s));
  return out;
}

}  // namespace

TEST_CASE(
    "Quantities within the accepted ranges never overflow the clock on the shipped scenarios") {
  std::mt19937_64 rng(20261130);
  const int draws = stepsim::test::kSanitized ? 3 : 6;  // the corner, then random draws
  int runs = 0;
  for (const std::string& file : stepsim::test::shipped_scenarios()) {
    const auto base = stepsim::config::load_scenario(file);
    for (int i = 0; i < draws; ++i) {
      const bool corner = i == 0;
      const auto overrides = draw(rng, base, corner);
      CAPTURE(file);
      CAPTURE(corner);
      const auto spec = stepsim::config::load_scenario(file, overrides);
      double step = 0.0;
      CHECK_NOTHROW(step = stepsim::run::simulate_step(spec).metrics.step_s);
      CHECK(std::isfinite(step));
      CHECK(step > 0.0);
      CHECK(step < 9.2e6);
      ++runs;
    }
  }
  CHECK(runs >= 5 * draws);
}
