// The layout search's bound (layout_bound.hpp) is the roofline's, without the step program.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/analysis/layout_bound.hpp"
#include "sim/analysis/roofline.hpp"
#include "sim/config/load.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

void same_bound(analysis::LayoutBounds& bounds, const std::string& scenario,
                const std::vector<std::string>& sets) {
  std::vector<config::Override> overrides;
  for (const std::string& s : sets) overrides.push_back(config::parse_override(s));
  const spec::ScenarioSpec spec =
      config::load_scenario(test::source_path("scenarios/" + scenario), overrides);
  const analysis::Roofline want = analysis::roofline(test::program_of(spec), spec.cluster);
  const workload::MemoryBreakdown memory = workload::memory_per_gpu(
      spec, workload::make_plan(spec), workload::ModelCost(spec.model, spec.training));
  const analysis::LayoutBound got = bounds.bound(spec);
  std::string what = scenario;
  for (const std::string& s : sets) what += " " + s;
  INFO(what);
  CHECK(got.bound_s == doctest::Approx(want.bound_s).epsilon(1e-9));
  CHECK(got.device == want.device);
  CHECK(got.times.limited_by() == want.limited_by);
  CHECK(got.times.t[0] == doctest::Approx(want.compute_s).epsilon(1e-9));
  CHECK(got.times.t[1] == doctest::Approx(want.hbm_s).epsilon(1e-9));
  CHECK(got.times.t[2] == doctest::Approx(want.nvlink_s).epsilon(1e-9));
  CHECK(got.times.t[3] == doctest::Approx(want.ib_s).epsilon(1e-9));
  CHECK(got.flops_per_gpu == doctest::Approx(want.flops_per_gpu).epsilon(1e-9));
  CHECK(got.memory.total() == doctest::Approx(memory.total()).epsilon(1e-12));
}

}  // namespace

TEST_CASE("The layout bound equals the roofline for every shipped scenario") {
  analysis::LayoutBounds bounds;
  for (const char* s : {"deepseek-v3-dualpipe.yaml", "deepseek-v3-dualpipev.yaml",
                        "deepseek-v3-1f1b.yaml", "deepseek-v3-zero3.yaml", "gpt3-175b-a100.yaml",
                        "llama3-405b-1f1b.yaml", "llama3-405b-128k-cp.yaml"})
    same_bound(bounds, s, {});
}

TEST_CASE("The layout bound equals the roofline across layouts that share its caches") {
  // One LayoutBounds for all: later layouts reuse the per-layer works and pipelines of earlier
  // ones wherever their keys agree.
  analysis::LayoutBounds bounds;
  const std::string ds = "deepseek-v3-dualpipe.yaml";
  same_bound(bounds, ds, {"parallelism.schedule=zb1p"});
  same_bound(bounds, ds, {"parallelism.schedule=1f1b", "parallelism.ep=32"});
  same_bound(bounds, ds,
             {"parallelism.schedule=interleaved", "parallelism.virtual_stages=2",
              "parallelism.pp=8", "parallelism.ep=16", "training.global_batch=16384"});
  same_bound(bounds, ds, {"parallelism.tp=2", "parallelism.sequence_parallel=true"});
  same_bound(bounds, ds, {"parallelism.comm_sms=32", "training.micro_batch=2"});
  same_bound(bounds, ds, {"parallelism.account_embedding=true", "parallelism.account_head=true"});
  same_bound(bounds, ds, {"training.recompute=full"});
  same_bound(bounds, ds, {"training.recompute=selective", "parallelism.schedule=gpipe"});
  same_bound(bounds, "deepseek-v3-zero3.yaml", {"parallelism.tp=8"});
  same_bound(bounds, "deepseek-v3-zero3.yaml", {"parallelism.zero=2"});
  same_bound(bounds, "gpt3-175b-a100.yaml", {"parallelism.tp=4", "parallelism.pp=16"});
  same_bound(bounds, "gpt3-175b-a100.yaml", {"parallelism.zero=0"});
  same_bound(bounds, "llama3-405b-1f1b.yaml", {"parallelism.tp=4", "parallelism.pp=8"});
  // Context parallelism: degree, algorithm and the group shapes they give are keys of the cache.
  const std::string cp = "llama3-405b-128k-cp.yaml";
  same_bound(bounds, cp, {"parallelism.cp=8"});
  same_bound(bounds, cp, {"parallelism.cp_algorithm=p2p"});
  same_bound(bounds, cp, {"parallelism.cp_algorithm=a2a"});
  same_bound(bounds, cp, {"parallelism.cp_algorithm=a2a+p2p", "parallelism.tp=2"});
  same_bound(bounds, cp, {"parallelism.cp=1", "parallelism.pp=64"});
}
