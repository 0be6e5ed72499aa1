// Synchronisation (analysis/step_metrics.hpp): GPUs that exchange every layer run at their slowest
// member's pace; the faster ones wait that difference, reported apart from compute.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "sim/config/load.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/hw/variability.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

TEST_CASE("One GPU 10 % slow in a tensor-parallel group: the group waits for it, by hand") {
  // One node of 8 GPUs, tensor parallelism 8: one group, an all-reduce every layer. With
  // communication free, the step is its compute: 1.1 x as long with GPU 3 at 1.1. The other
  // seven compute 1/1.1 of it and wait the rest: the mean synchronisation is 7/8 (1 - 1/1.1) T.
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.tp = 8;
  s.fidelity = spec::NetworkFidelity::free;
  const auto base = run::simulate_step(s);
  spec::FaultSpec slow;
  slow.kind = spec::FaultKind::straggler;
  slow.gpu = 3;
  slow.factor = 1.1;
  s.cluster.faults.push_back(slow);
  const auto late = run::simulate_step(s);
  const double t = late.metrics.step_s;
  CHECK(t == doctest::Approx(base.metrics.step_s * 1.1).epsilon(1e-6));
  CHECK(late.metrics.mean.synchronisation == doctest::Approx(7.0 / 8.0 * (1.0 - 1.0 / 1.1) * t));
  CHECK(base.metrics.mean.synchronisation == 0.0);
  const auto& m = late.metrics.mean;
  CHECK(m.compute + m.synchronisation + m.exposed_comm + m.bubble + m.other_idle ==
        doctest::Approx(t));
}

namespace {

// The ops on the critical path of a simulated step, walked back from the op that ends last: at
// each op, the predecessor (a dependency, or the op before it on its stream) that ended when it
// started.
std::vector<int> critical_path(const run::Result& s) {
  const auto& ops = s.build.graph.ops;
  const auto& t = s.timeline;
  std::map<std::pair<int, int>, std::vector<int>> streams;  // (device, stream) -> ops in order
  std::vector<int> before(ops.size(), -1);
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    auto& q = streams[{ops[i].device, static_cast<int>(ops[i].stream)}];
    if (!q.empty()) before[i] = q.back();
    q.push_back(i);
  }
  int at = 0;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i)
    if (t.end[i] > t.end[at]) at = i;
  std::vector<int> path{at};
  while (t.start[at].picoseconds() > 0) {
    int next = -1;
    std::vector<int> preds = ops[at].deps;
    if (before[at] >= 0) preds.push_back(before[at]);
    for (int p : preds)
      if (t.end[p] == t.start[at]) next = p;
    if (next < 0) break;  // a coupled collective waiting for another class
    path.push_back(at = next);
  }
  return path;
}

}  // namespace

TEST_CASE(
    "One GPU 10 % slow in one EP group under DualPipe: the group's exchanges wait for it, "
    "and the step grows by its extra compute on the critical path") {
  // DeepSeek-V3 under DualPipe with communication free: every layer's dispatch and combine over
  // EP 64 couple the group, so the slow GPU's cell (one column of the symmetry classes) computes
  // at its pace. Hand count from the traces: the step grows by the slow device's extra compute
  // along the critical path.
  spec::ScenarioSpec s =
      config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  s.fidelity = spec::NetworkFidelity::free;
  const auto base = run::simulate_step(s);
  spec::FaultSpec slow;
  slow.kind = spec::FaultKind::straggler;
  slow.gpu = 3;  // pipeline rank 0 (stages 0 and 15, the busiest), EP group 0 of that rank
  slow.factor = 1.1;
  s.cluster.faults.push_back(slow);
  const auto late = run::simulate_step(s);
  int device = -1;
  for (int d = 0; d < static_cast<int>(late.build.graph.info.size()); ++d) {
    const auto& i = late.build.graph.info[d];
    if (i.rank == 0 && i.first_gpu <= slow.gpu && slow.gpu < i.first_gpu + i.gpus && i.pace > 1.0)
      device = d;
  }
  REQUIRE(device >= 0);
  CHECK(late.build.graph.info[device].pace == doctest::Approx(1.1));
  const auto& ops = late.build.graph.ops;
  // Each of its exchanges starts once the slow compute before it has ended.
  int exchanges = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].device != device || (ops[i].kind != workload::StepOpKind::ep_dispatch &&
                                    ops[i].kind != workload::StepOpKind::ep_combine))
      continue;
    ++exchanges;
    for (int d : ops[i].deps)
      if (ops[d].stream == workload::StreamKind::compute)
        CHECK(late.timeline.start[i] >= late.timeline.end[d]);
  }
  CHECK(exchanges > 0);
  // The slow device's extra compute along a critical path: on the slow step's (1 - 1/1.1 of its
  // compute ops there) and on the base step's (0.1 of them, where the same GPU's class of the
  // unslowed step computes). The step grows by at least the base path's extra (that path is
  // that much longer now) and at most the slow path's (it was no longer than T before).
  auto extra = [](const run::Result& sim, int dev, double per_second) {
    double e = 0.0;
    for (int i : critical_path(sim)) {
      const auto& op = sim.build.graph.ops[i];
      if (op.device == dev && op.stream == workload::StreamKind::compute)
        e += op.duration.seconds() * per_second;
    }
    return e;
  };
  int unslowed = -1;  // the class of column 0 (GPUs 0-63) on rank 0 in the base step
  for (int d = 0; d < static_cast<int>(base.build.graph.info.size()); ++d)
    if (base.build.graph.info[d].rank == 0 && base.build.graph.info[d].first_gpu == 0) unslowed = d;
  REQUIRE(unslowed >= 0);
  const double upper = extra(late, device, 1.0 - 1.0 / 1.1);
  const double lower = extra(base, unslowed, 0.1);
  const double grown = late.metrics.step_s - base.metrics.step_s;
  MESSAGE("step " << base.metrics.step_s << " s -> " << late.metrics.step_s << " s: +" << grown
                  << " s; the slow GPU's extra compute on the critical path: " << lower
                  << " s (base step's path) to " << upper << " s (slow step's)");
  CHECK(grown >= lower * (1.0 - 1e-9));
  CHECK(grown <= upper * (1.0 + 1e-9));
  CHECK(upper - lower < 0.01 * grown);
}

TEST_CASE(
    "Kernel jitter: each tensor-parallel all-reduce first waits e_8 x j x sqrt(sum t_k^2) "
    "for its slowest member, counted as synchronisation") {
  // One node, TP 8, communication free: one device, everything in series, so the step grows by
  // exactly the waits. Each wait covers the kernels since the chain's previous collective.
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.tp = 8;
  s.fidelity = spec::NetworkFidelity::free;
  const auto base = run::simulate_step(s);
  const double j = 0.05;
  s.cluster.variability.kernel_jitter = j;
  const auto jit = run::simulate_step(s);
  const hw::TableKernelModel model(s.cluster.device);
  const double e8 = hw::expected_max_normal(8);
  double expected = 0.0;  // Σ over the step's chunks of their chains' waits
  std::vector<double> runs(jit.prepared.program.chains.size(), 0.0);
  for (const auto& in : jit.prepared.program.ranks[0])
    for (const auto& c : in.chunks) runs[c.chain] += 1.0;
  for (std::size_t c = 0; c < runs.size(); ++c) {
    double sq = 0.0;
    for (const workload::Work& w : jit.prepared.program.chains[c]) {
      for (const hw::Kernel& k : w.kernels)
        sq += std::pow(model.seconds(k, jit.prepared.program.sm_share), 2);
      if (w.kind == workload::StepOpKind::tp_reduce) {
        expected += runs[c] * e8 * j * std::sqrt(sq);
        sq = 0.0;
      }
    }
  }
  double waits = 0.0;
  int barriers = 0;
  for (std::size_t i = 0; i < jit.build.graph.ops.size(); ++i) {
    const auto& op = jit.build.graph.ops[i];
    if (op.kind == workload::StepOpKind::barrier) {
      waits += op.duration.seconds();
      ++barriers;
    }
    if (op.kind == workload::StepOpKind::tp_reduce) {  // each waits for its barrier alone
      REQUIRE(op.deps.size() == 1);
      CHECK(jit.build.graph.ops[op.deps[0]].kind == workload::StepOpKind::barrier);
    }
  }
  CHECK(barriers > 0);
  CHECK(waits == doctest::Approx(expected).epsilon(1e-6));
  CHECK(jit.metrics.step_s - base.metrics.step_s == doctest::Approx(waits).epsilon(1e-6));
  CHECK(jit.metrics.mean.synchronisation == doctest::Approx(waits).epsilon(1e-6));
  CHECK(jit.metrics.mean.exposed_comm == doctest::Approx(base.metrics.mean.exposed_comm));
  // Off: no wait at all, the step as before.
  for (const auto& op : base.build.graph.ops) CHECK(op.kind != workload::StepOpKind::barrier);
}
