// Bubble oracles on the production executor: the step program of each schedule, its chunks given
// exact compute times (F, B, W; X = B + W, an overlapped F&B pair F + B + W), built and run by
// exec with a free network; each device's idle time against the schedule's published formula
// (deepseek-ai/DualPipe README's bubble table; Narayanan et al., arXiv 2104.04473; Qi et al.,
// arXiv 2401.10241) for p in {4, 8, 16} and m in {2p, 4p}. With a free network an overlapped
// pair hides nothing (F&B = F + B + W), which is the table's F&B in that case.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "sim/exec/instantiate.hpp"
#include "sim/exec/step_executor.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/schedule/schedule.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using spec::Schedule;
using workload::Phase;

namespace {

struct Costs {
  std::int64_t f, b, w;  // ns
};

// A device's compute busy time and the step, from a run of `schedule` over p ranks and m
// micro-batches whose chunks take exactly the given times.
struct Run {
  exec::StepBuild build;
  exec::StepTimeline timeline;
  workload::StepProgram program;

  double idle_ns(int rank) const {
    double busy = 0.0;
    for (std::size_t i = 0; i < build.graph.ops.size(); ++i) {
      const auto& op = build.graph.ops[i];
      if (op.device == rank && op.stream == workload::StreamKind::compute)
        busy += (timeline.end[i] - timeline.start[i]).seconds();
    }
    return (timeline.step.seconds() - busy) * 1e9;
  }
};

Run run(Schedule schedule, int p, int m, Costs c, int v = 1,
        spec::NetworkFidelity fidelity = spec::NetworkFidelity::free) {
  spec::ScenarioSpec s = test::small_scenario(1, p);
  s.model.layers = 48;
  s.parallel.pp = p;
  s.parallel.schedule = schedule;
  s.parallel.virtual_stages = v;
  s.training.global_batch = m;
  s.cluster.device.hbm_bandwidth = 1e12;  // a memory-bound kernel of 1000 bytes takes 1 ns
  const workload::ParallelPlan plan = workload::make_plan(s);
  const workload::ModelCost cost(s.model, s.training);
  Run r;
  r.program = workload::build_program(s, plan, cost);
  // Every chain is one kernel of its phase's time; the step ends with the last backward.
  auto chain = [](std::int64_t ns) {
    workload::Work w;
    w.part = "chunk";
    hw::Kernel k;
    k.set_op("chunk");
    k.hbm_bytes = 1000.0 * static_cast<double>(ns);
    w.kernels = {k};
    return workload::Chain{w};
  };
  for (const auto& rank : r.program.ranks)
    for (const auto& in : rank)
      for (const auto& ch : in.chunks) {
        const std::int64_t ns = ch.phase == Phase::forward           ? c.f
                                : ch.phase == Phase::backward        ? c.b
                                : ch.phase == Phase::backward_weight ? c.b + c.w
                                                                     : c.w;
        r.program.chains[ch.chain] = chain(ns);
      }
  for (auto& tail : r.program.tail) tail.clear();
  const hw::Topology topo(s.cluster);
  r.build = exec::build_step(r.program, topo, {fidelity, false});
  r.timeline = exec::execute_step(r.build.graph);
  return r;
}

// Every forward, backward and weight task of every (stage, micro-batch) ran exactly once, on the
// rank that holds it, and no chunk started before its input had arrived from the other rank.
void check_complete(const Run& r) {
  const auto& prog = r.program.pipeline;
  std::map<std::tuple<int, int, int>, int> ran;       // (phase, stage, mb)
  std::map<std::tuple<int, int, int>, double> ready;  // (forward?, stage, mb) -> output's arrival
  const auto& g = r.build.graph;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto& op = g.ops[i];
    if (op.kind == workload::StepOpKind::pp_send)
      ready[{op.phase == Phase::forward, op.stage, op.mb}] = r.timeline.end[i].seconds();
    if (op.stream != workload::StreamKind::compute || op.mb < 0) continue;
    CHECK(prog.device_of(op.stage, op.mb) == op.device);
    const Phase ph = op.phase;
    if (ph == Phase::backward_weight) {
      ++ran[{static_cast<int>(Phase::backward), op.stage, op.mb}];
      ++ran[{static_cast<int>(Phase::weight), op.stage, op.mb}];
    } else {
      ++ran[{static_cast<int>(ph), op.stage, op.mb}];
    }
  }
  for (int st = 0; st < prog.stages; ++st)
    for (int mb = 0; mb < prog.micro_batches; ++mb)
      for (Phase ph : {Phase::forward, Phase::backward, Phase::weight})
        REQUIRE(ran[{static_cast<int>(ph), st, mb}] == 1);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto& op = g.ops[i];
    if (op.stream != workload::StreamKind::compute || op.mb < 0) continue;
    const bool fwd = op.phase == Phase::forward;
    if (fwd ? op.stage == 0 : op.stage == prog.stages - 1) continue;
    if (!workload::is_backward(op.phase) && !fwd) continue;
    const auto it = ready.find({fwd, fwd ? op.stage - 1 : op.stage + 1, op.mb});
    if (it != ready.end()) CHECK(r.timeline.start[i].seconds() >= it->second);
  }
}

void check_idle(const Run& r, int p, double want_ns) {
  for (int d = 0; d < p; ++d) {
    CAPTURE(d);
    CHECK(r.idle_ns(d) == doctest::Approx(want_ns).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("1F1B and GPipe: bubble (p-1)(F+B) on every device") {
  for (int p : {4, 8, 16})
    for (int m : {2 * p, 4 * p})
      for (Schedule s : {workload::schedule_named("1f1b"), workload::schedule_named("gpipe")}) {
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(workload::to_string(s));
        const Run r = run(s, p, m, {100, 130, 70});
        check_complete(r);
        check_idle(r, p, (p - 1) * (100 + 130 + 70));
      }
}

TEST_CASE("ZB1P: bubble (p-1)(F+B-2W), B the full backward, on every device") {
  for (int p : {4, 8, 16})
    for (int m : {2 * p, 4 * p})
      for (auto [f, b, w] :
           {std::tuple{100, 100, 100}, std::tuple{100, 130, 70}, std::tuple{120, 90, 80}}) {
        CAPTURE(p);
        CAPTURE(m);
        const Run r = run(workload::schedule_named("zb1p"), p, m, {f, b, w});
        check_complete(r);
        check_idle(r, p, (p - 1) * (f + (b + w) - 2 * w));
      }
}

TEST_CASE("Interleaved 1F1B: bubble (p-1)(F+B)/v, F and B of a whole device's layers") {
  for (int p : {4, 8, 16})
    for (int m : {2 * p, 4 * p})
      for (int v : {2, 3}) {
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(v);
        // Chunk times: a device's F = v·60 ns, full B = v·150 ns.
        const Run r = run(workload::schedule_named("interleaved"), p, m, {60, 90, 60}, v);
        check_complete(r);
        check_idle(r, p, (p - 1) * (60 + 150));
      }
}

// DualPipe's published bubble is (p/2-1)(F&B + B - 3W) with B the full backward. With a free
// network an overlapped pair takes F + B + W, and with F = B = W = x that is 2x(p/2-1) on every
// device (the outer devices' fewer pairs then cost nothing: F + B + W - F&B = 0).
TEST_CASE("DualPipe (explicit sends and receives): the published bubble on every device") {
  for (int p : {4, 8, 16})
    for (int m : {2 * p, 4 * p}) {
      CAPTURE(p);
      CAPTURE(m);
      const std::int64_t x = 100, P = p / 2;
      const Run r = run(workload::schedule_named("dualpipe"), p, m, {x, x, x});
      CHECK(r.program.explicit_sends);
      check_complete(r);
      check_idle(r, p, (P - 1) * (3 * x + 2 * x - 3 * x));
    }
}

// DualPipeV: 2n stages on n devices (PP = 2n stages in the published table): (n-1)(F&B + B - 3W),
// 2x(n-1) with a free network and F = B = W = x.
TEST_CASE("DualPipeV: the published bubble on every device") {
  for (int n : {2, 4, 8})
    for (int m : {2 * n, 4 * n, 4 * n + 1}) {
      CAPTURE(n);
      CAPTURE(m);
      const std::int64_t x = 100;
      const Run r = run(workload::schedule_named("dualpipev"), n, m, {x, x, x});
      CHECK(r.program.pipeline.stages == 2 * n);
      check_complete(r);
      check_idle(r, n, (n - 1) * (3 * x + 2 * x - 3 * x));
    }
}

TEST_CASE("Message delays stretch the pipeline; every task still runs once") {
  for (Schedule s : {workload::schedule_named("1f1b"), workload::schedule_named("zb1p"),
                     workload::schedule_named("dualpipe"), workload::schedule_named("gpipe")}) {
    CAPTURE(workload::to_string(s));
    const Run free_run = run(s, 8, 32, {100, 100, 100});
    const Run slow = run(s, 8, 32, {100, 100, 100}, 1, spec::NetworkFidelity::analytic);
    check_complete(slow);
    CHECK(slow.timeline.step > free_run.timeline.step);
  }
}

TEST_CASE("No two compute ops overlap on one device") {
  const Run r = run(workload::schedule_named("dualpipe"), 8, 16, {100, 120, 80});
  std::map<int, engine::Time> last;
  for (std::size_t i = 0; i < r.build.graph.ops.size(); ++i) {
    const auto& op = r.build.graph.ops[i];
    if (op.stream != workload::StreamKind::compute) continue;
    CHECK(r.timeline.start[i] >= last[op.device]);
    last[op.device] = r.timeline.end[i];
  }
}
