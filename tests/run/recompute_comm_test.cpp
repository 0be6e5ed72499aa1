// Full recomputation reruns each layer's forward in its backward, and with it the forward's
// communication: two tensor-parallel all-reduces per dense layer. The step graph and the roofline
// must both count them.
#include <doctest/doctest.h>

#include "sim/run/pipeline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

int tp_reduces(const exec::StepGraph& g) {
  int n = 0;
  for (const auto& op : g.ops) n += op.kind == workload::StepOpKind::tp_reduce;
  return n;
}

double tp_bytes(const analysis::Roofline& r) {
  for (const auto& row : r.traffic)
    if (row.kind == "tp") return row.bytes.nvlink + row.bytes.ib;
  return 0.0;
}

}  // namespace

TEST_CASE("Full recomputation repeats the forward's two tensor-parallel all-reduces per layer") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.tp = 2;
  s.training.global_batch = 8;
  s.training.recompute.mode = spec::RecomputeMode::selective;
  const auto selective = run::simulate_step(s);
  s.training.recompute.mode = spec::RecomputeMode::full;
  const auto full = run::simulate_step(s);
  // One device (pp 1), 8 layers, 2 micro-batches (dp 4): 4 all-reduces per layer and micro-batch,
  // 6 with full recomputation.
  const int per_layer_mb = 8 * 2;
  CHECK(tp_reduces(selective.build.graph) == 4 * per_layer_mb);
  CHECK(tp_reduces(full.build.graph) == 6 * per_layer_mb);
  CHECK(tp_bytes(full.roofline) == doctest::Approx(1.5 * tp_bytes(selective.roofline)));
  CHECK(full.metrics.step_s > selective.metrics.step_s);
}
