// ZeRO-3 as frameworks run it (spec/zero3.hpp, workload/zero3_placement.hpp), on the shipped
// GPT-3 175B scenario over 1536 A100: per-module gathers, re-gathers after recomputation and
// one-module prefetch make DeepSpeed's defaults expose communication that one prefetched gather
// per layer hides.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

run::Result simulate(const std::string& impl) {
  return run::simulate_step(
      config::load_scenario(test::source_path("scenarios/gpt3-175b-zero3-a100.yaml"),
                            {config::parse_override("parallelism.zero3.impl=" + impl)}));
}

// Seconds of kernels device 0 runs, each at its own speed (alone on its GPU).
double own_compute(const run::Result& s) {
  double t = 0.0;
  for (const auto& op : s.build.graph.ops)
    if (op.device == 0 && op.kind == workload::StepOpKind::kernel) t += op.duration.seconds();
  return t;
}

int count(const run::Result& s, workload::StepOpKind kind, int layer) {
  int n = 0;
  for (const auto& op : s.build.graph.ops) n += op.kind == kind && op.layer == layer;
  return n;
}

}  // namespace

TEST_CASE("GPT-3 175B on 1536 A100: DeepSpeed's ZeRO-3 gathers per module and exposes it") {
  const auto ds = simulate("deepspeed"), fsdp1 = simulate("fsdp1"), fsdp2 = simulate("fsdp2"),
             ideal = simulate("ideal");
  using workload::StepOpKind;
  // One sequence per GPU, so one forward and one backward chunk. A layer's four weight GEMMs
  // are gathered in forward, again for the recomputed forward, and all but the last once more
  // for the backward (the modules between a module's two calls hold over 1e9 elements); its
  // gradients fill four buckets of at most 5e8 elements (every weight but the 151 M-element
  // output projection exceeds it alone).
  CHECK(count(ds, StepOpKind::zero_gather, 50) == 4 + 4 + 3);
  CHECK(count(ds, StepOpKind::zero_scatter, 50) == 4);
  CHECK(count(fsdp1, StepOpKind::zero_gather, 50) == 2);
  CHECK(count(fsdp1, StepOpKind::zero_scatter, 50) == 1);
  const double t = ds.metrics.step_s;
  MESSAGE("step: deepspeed " << t << " s, fsdp1 " << fsdp1.metrics.step_s << " s, fsdp2 "
                             << fsdp2.metrics.step_s << " s, ideal " << ideal.metrics.step_s
                             << " s; deepspeed exposes " << ds.metrics.mean.exposed_comm << " s");
  CHECK(ds.metrics.mean.exposed_comm > 0.1 * t);
  CHECK(ideal.metrics.mean.exposed_comm < 0.1 * ds.metrics.mean.exposed_comm);
  CHECK(t > fsdp1.metrics.step_s);
  // FSDP2's copy-out and copy-in add HBM work to every gather and reduction.
  CHECK(fsdp2.metrics.mean.compute > fsdp1.metrics.mean.compute);
  // The same kernels under every implementation but FSDP2's copies; the gathers' CTAs take SMs
  // from the compute they overlap, more of it under DeepSpeed's per-module gathers.
  CHECK(own_compute(ds) == doctest::Approx(own_compute(ideal)).epsilon(0.01));
  MESSAGE("compute alone " << own_compute(ds) << " s; deepspeed " << ds.metrics.mean.compute
                           << " s, ideal " << ideal.metrics.mean.compute << " s");
  CHECK(ds.metrics.mean.compute > 1.02 * own_compute(ds));
}

// Answers on the whole cluster: the release build alone (the placement and the synchronisations'
// code paths run sanitized in tests/workload/zero3_placement_test.cpp and the shipped scenario's
// runs).
#ifndef STEPSIM_TEST_SANITIZED
TEST_CASE("GPT-3 175B under DeepSpeed 0.5: per-tensor gathers after a zeroing, host-synchronised") {
  const auto old = simulate("deepspeed-0.5"), today = simulate("deepspeed");
  using workload::StepOpKind;
  const auto& g = old.build.graph;
  const auto& tl = old.timeline;
  // The same modules as today (one weight tensor each: GPT-3's biases, at most 49,152 elements,
  // persist), each gather after a kernel zeroing its buffer.
  CHECK(count(old, StepOpKind::zero_gather, 50) == count(today, StepOpKind::zero_gather, 50));
  CHECK(count(old, StepOpKind::zero_scatter, 50) == 4);
  // Device 0's ops in issue order; the latest end before each, the earliest start from each on.
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].device == 0) mine.push_back(i);
  std::vector<engine::Time> ended(mine.size()), from(mine.size());
  engine::Time latest;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    ended[k] = latest;
    latest = std::max(latest, tl.end[mine[k]]);
  }
  engine::Time earliest = tl.step;
  for (std::size_t k = mine.size(); k-- > 0;) {
    earliest = std::min(earliest, tl.start[mine[k]]);
    from[k] = earliest;
  }
  int zeroings = 0, gathers = 0, buckets = 0, unsynced = 0;
  std::size_t last_bucket = 0;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const auto& op = g.ops[mine[k]];
    zeroings += op.part == "zero gather buffer";
    // A gather is issued after torch.cuda.synchronize(): every op issued before it has ended.
    if (op.kind == StepOpKind::zero_gather) {
      ++gathers;
      unsynced += ended[k] > tl.start[mine[k]];
    }
    // A bucket is issued after reduction_stream.synchronize(): what the host issues from there
    // on waits for the bucket before.
    if (op.kind == StepOpKind::zero_scatter) {
      if (buckets++ > 0) unsynced += from[k] < tl.end[mine[last_bucket]];
      last_bucket = k;
    }
  }
  CHECK(unsynced == 0);
  CHECK(gathers > 96 * 11);
  CHECK(zeroings == gathers);
  CHECK(buckets > 96 * 4 - 4);
  MESSAGE("step: deepspeed-0.5 " << old.metrics.step_s << " s, deepspeed today "
                                 << today.metrics.step_s << " s; exposed communication "
                                 << old.metrics.mean.exposed_comm << " s against "
                                 << today.metrics.mean.exposed_comm << " s");
  CHECK(old.metrics.step_s > today.metrics.step_s);
  CHECK(old.metrics.mean.exposed_comm > today.metrics.mean.exposed_comm);
}
#endif
