#include "sim/run/pipeline.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include "sim/config/load.hpp"
#include "sim/workload/memory.hpp"
#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using engine::Time;
using spec::Schedule;

namespace {

spec::ScenarioSpec load(const std::string& file, const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> o;
  for (const auto& s : sets) o.push_back(config::parse_override(s));
  return config::load_scenario(test::source_path(file), o);
}

// A dense model with equal stages (16 layers, no embedding or head cost), on 4 nodes.
spec::ScenarioSpec equal_stages(Schedule s, int pp, int m, int v = 1) {
  spec::ScenarioSpec spec = test::small_scenario(4, 8);
  spec.model.layers = 16 * v;
  spec.model.vocab = 1;  // embedding and head negligible next to the layers
  spec.parallel.pp = pp;
  spec.parallel.tp = 32 / pp;  // dp = 1
  spec.parallel.schedule = s;
  spec.parallel.virtual_stages = v;
  spec.training.global_batch = m;
  spec.fidelity = spec::NetworkFidelity::free;
  spec.cluster.device.hbm_bandwidth = 1e18;  // elementwise ops and the embedding cost ~nothing
  return spec;
}

// Compute time of one forward and one full backward chunk of `stage` for micro-batch 0.
std::pair<double, double> chunk_times(const run::Result& s, int stage) {
  double f = 0.0, b = 0.0;
  for (const auto& op : s.build.graph.ops) {
    if (op.stream != workload::StreamKind::compute || op.mb != 0 || op.stage != stage) continue;
    if (op.phase == workload::Phase::forward) f += op.duration.seconds();
    if (op.phase == workload::Phase::backward_weight) b += op.duration.seconds();
  }
  return {f, b};
}

}  // namespace

// The split of idle time into its categories is checked on a hand-built program
// (gap_blame_test.cpp); here, on the shipped scenarios, what can be checked independently of it.
TEST_CASE(
    "Metric invariants: compute is the sum of compute kernels; T is the last op's end; streams "
    "never overlap") {
  for (const char* file : {"scenarios/deepseek-v3-dualpipe.yaml", "scenarios/deepseek-v3-1f1b.yaml",
                           "scenarios/deepseek-v3-zero3.yaml", "scenarios/llama3-405b-1f1b.yaml",
                           "scenarios/gpt3-175b-a100.yaml"}) {
    if (!test::shipped_scenario_runs_here(std::filesystem::path(file).stem().string())) continue;
    CAPTURE(file);
    const auto s = run::simulate_step(load(file));
    const auto& g = s.build.graph;
    Time last_end;
    for (const auto& e : s.timeline.end) last_end = std::max(last_end, e);
    CHECK(s.metrics.step_s == doctest::Approx(last_end.seconds()).epsilon(1e-12));
    for (int d = 0; d < g.devices; ++d) {
      const auto& b = s.metrics.per_device[d];
      double kernels = 0.0;
      for (int op : g.streams[d][static_cast<int>(workload::StreamKind::compute)])
        kernels += (s.timeline.end[op] - s.timeline.start[op]).seconds();
      // Of the compute stream's time, the part the device's faster GPUs spend waiting for its
      // slowest (A100's GPU spread) is synchronisation; none of these has kernel jitter, whose
      // waits before collectives would count there too.
      CHECK(b.compute + b.synchronisation == doctest::Approx(kernels).epsilon(1e-9));
      CHECK(b.compute <= s.metrics.step_s * (1 + 1e-12));
      CHECK(b.exposed_comm >= 0.0);
      CHECK(b.bubble >= 0.0);
      CHECK(b.other_idle >= -1e-12);
    }
    for (int d = 0; d < g.devices; ++d)
      for (int k = 0; k < workload::kStreams; ++k) {
        Time last;
        for (int op : g.streams[d][k]) {
          CHECK(s.timeline.start[op] >= last);
          last = s.timeline.end[op];
          for (int dep : g.ops[op].deps) CHECK(s.timeline.start[op] >= s.timeline.end[dep]);
        }
      }
  }
}

TEST_CASE("A free network exposes no communication") {
  for (const char* file :
       {"scenarios/deepseek-v3-dualpipe.yaml", "scenarios/deepseek-v3-zero3.yaml"}) {
    const auto s = run::simulate_step(load(file, {"network.fidelity=free"}));
    for (const auto& b : s.metrics.per_device) CHECK(b.exposed_comm == 0.0);
  }
}

// The published bubbles are a device's whole idle time: the pipeline waits (bubble) and the
// drain after its last kernel (other idle, by DESIGN's definitions).
TEST_CASE(
    "Full simulation, free network, equal stages: 1F1B, GPipe and interleaved idle match their "
    "formulas") {
  for (int p : {4, 8}) {
    for (Schedule sch : {workload::schedule_named("1f1b"), workload::schedule_named("gpipe")}) {
      CAPTURE(p);
      const auto s = run::simulate_step(equal_stages(sch, p, 2 * p));
      const auto [f, b] = chunk_times(s, 1);
      for (int d = 0; d < p; ++d) {
        const auto& m = s.metrics.per_device[d];
        CHECK(m.bubble + m.other_idle == doctest::Approx((p - 1) * (f + b)).epsilon(1e-3));
      }
    }
    // Interleaved: chunk times f, b; a device's F + B over its v = 2 chunks is 2(f + b).
    const auto s =
        run::simulate_step(equal_stages(workload::schedule_named("interleaved"), p, 2 * p, 2));
    const auto [f, b] = chunk_times(s, 1);
    for (int d = 0; d < p; ++d) {
      const auto& m = s.metrics.per_device[d];
      CHECK(m.bubble + m.other_idle == doctest::Approx((p - 1) * 2 * (f + b) / 2).epsilon(1e-3));
    }
  }
}

TEST_CASE(
    "DeepSeek-V3 on 2048 GPUs: ZeRO-3 >= 2x DualPipe and mostly exposed communication; DualPipe "
    "bubbles less than 1F1B on the same split and hides the all-to-alls 1F1B exposes") {
  const auto dual = run::simulate_step(load("scenarios/deepseek-v3-dualpipe.yaml"));
  const auto one = run::simulate_step(load("scenarios/deepseek-v3-1f1b.yaml"));
  const auto same_split = run::simulate_step(
      load("scenarios/deepseek-v3-dualpipe.yaml", {"parallelism.schedule=1f1b"}));
  const auto z3 = run::simulate_step(load("scenarios/deepseek-v3-zero3.yaml"));
  CHECK(z3.metrics.step_s >= 2.0 * dual.metrics.step_s);
  CHECK(z3.metrics.mean.exposed_comm > 0.5 * z3.metrics.step_s);
  CHECK(dual.metrics.mean.bubble < same_split.metrics.mean.bubble);
  CHECK(dual.metrics.mean.exposed_comm < 0.5 * one.metrics.mean.exposed_comm);
  CHECK(dual.metrics.step_s < one.metrics.step_s);
  // Simulation never beats the speed of light.
  for (const auto* s : {&dual, &one, &z3}) CHECK(s->metrics.step_s >= s->roofline.bound_s * 0.999);
}

TEST_CASE(
    "Embedding and head placement: an embedding-only first stage; the head counted in the split") {
  // The published layout under 1F1B with stepsim's default split (3, 4 x 14, 2).
  const std::vector<std::string> plain_1f1b{"parallelism.schedule=1f1b"};
  const auto base = run::simulate_step(load("scenarios/deepseek-v3-dualpipe.yaml", plain_1f1b));
  const auto alone =
      run::simulate_step(load("scenarios/deepseek-v3-1f1b.yaml",
                              {"parallelism.stage_layers=[0,5,5,4,4,4,4,4,4,4,4,4,4,4,4,3]"}));
  CHECK(alone.metrics.per_device[0].compute < 0.01 * alone.metrics.per_device[1].compute);
  for (const auto& d : alone.metrics.per_device)
    CHECK(d.compute + d.exposed_comm + d.bubble + d.other_idle ==
          doctest::Approx(alone.metrics.step_s));
  // The head costs about a layer: counting it in the split unloads the last rank, the slowest.
  std::vector<std::string> counted_sets = plain_1f1b;
  counted_sets.push_back("parallelism.account_head=true");
  const auto counted =
      run::simulate_step(load("scenarios/deepseek-v3-dualpipe.yaml", counted_sets));
  CHECK(counted.metrics.per_device[15].compute < base.metrics.per_device[15].compute);
  CHECK(counted.metrics.step_s < base.metrics.step_s);
  // The shipped 1F1B scenario balances its stages as Megatron-Core does (the MTP block and the
  // head on a last stage of their own): no rank computes 25 % more than a middle rank, where the
  // default split's last rank computes half as much again, and the step is shorter.
  const auto shipped = run::simulate_step(load("scenarios/deepseek-v3-1f1b.yaml"));
  const double middle = shipped.metrics.per_device[8].compute;
  for (const auto& d : shipped.metrics.per_device) CHECK(d.compute < 1.25 * middle);
  CHECK(base.metrics.per_device[15].compute > 1.4 * base.metrics.per_device[8].compute);
  CHECK(shipped.metrics.step_s < base.metrics.step_s);
}

TEST_CASE(
    "Oversubscribed leaves: only bytes leaving the leaf slow down; the bound stays below the "
    "simulation") {
  // EP64 spans 8 nodes, inside one 32-node leaf: the bound, which counts all-to-all bytes, does
  // not move; the step does, a little, through the replicas' pipeline sends between ranks on
  // different leaves (fault_position_test.cpp).
  const auto plain = run::simulate_step(load("scenarios/deepseek-v3-dualpipe.yaml"));
  const auto over = run::simulate_step(
      load("scenarios/deepseek-v3-dualpipe.yaml", {"cluster.fabric.oversubscription=4"}));
  CHECK(over.roofline.ib_s == plain.roofline.ib_s);
  // (Slower sends can reorder the schedule and end it a hair earlier: fault_position_test.cpp.)
  CHECK(over.metrics.step_s >= plain.metrics.step_s * (1.0 - 3e-3));
  // EP128 over 16 nodes with 12-node leaves (24-port switches): at least 4/15 of its IB bytes
  // leave the leaf, through uplinks at a quarter of the NIC rate.
  const std::vector<std::string> wide{"parallelism.ep=128", "cluster.fabric.switch_ports=24"};
  std::vector<std::string> wide_over = wide;
  wide_over.push_back("cluster.fabric.oversubscription=4");
  const auto a = run::simulate_step(load("scenarios/deepseek-v3-dualpipe.yaml", wide));
  const auto b = run::simulate_step(load("scenarios/deepseek-v3-dualpipe.yaml", wide_over));
  CHECK(b.roofline.ib_s > a.roofline.ib_s);
  CHECK(b.metrics.step_s > a.metrics.step_s);
  for (const auto* s : {&plain, &over, &a, &b}) CHECK(s->metrics.step_s >= s->roofline.bound_s);
}

TEST_CASE("A straggler slows its pipeline rank and the step") {
  const auto base = run::simulate_step(load("scenarios/deepseek-v3-1f1b.yaml"));
  const auto slow = run::simulate_step(load(
      "scenarios/deepseek-v3-1f1b.yaml", {"faults=[{kind: straggler, gpu: 200, slowdown: 1.5}]"}));
  CHECK(slow.metrics.step_s > base.metrics.step_s);
  // GPU 200 is in cell 1 (GPUs 192-255) of rank 1: that column is a class of its own.
  const auto& g = slow.build.graph;
  int device = -1;
  for (int d = 0; d < g.devices; ++d)
    if (g.rank_of(d) == 1 && g.info[d].first_gpu == 192) device = d;
  REQUIRE(device >= 0);
  CHECK(g.info[device].cells == "1");
  // It runs at GPU 200's pace; its other 63 GPUs compute 1/1.5 of that and wait the rest.
  const auto& b = slow.metrics.per_device[device];
  const double paced = 1.5 * base.metrics.per_device[1].compute;
  CHECK(b.compute + b.synchronisation == doctest::Approx(paced).epsilon(0.01));
  CHECK(b.synchronisation ==
        doctest::Approx((1.0 - (63.0 / 1.5 + 1.0) / 64.0) * (b.compute + b.synchronisation)));
  // The other column's rank 1 runs at its own pace.
  CHECK(slow.metrics.per_device[device - 1].compute ==
        doctest::Approx(base.metrics.per_device[1].compute).epsilon(1e-6));
}

TEST_CASE("ZeRO-3 prefetch overlaps parameter gathers with the previous layers' compute") {
  spec::ScenarioSpec s = test::small_scenario(4, 8);
  s.parallel.zero = 3;
  s.parallel.zero3.prefetch = 0;
  const auto none = run::simulate_step(s);
  s.parallel.zero3.prefetch = 1;
  const auto one = run::simulate_step(s);
  s.parallel.zero3.prefetch = 2;
  const auto two = run::simulate_step(s);
  // Without prefetch a gather starts only when the previous layer is done: nothing overlaps it.
  CHECK(none.metrics.mean.overlapped_comm < one.metrics.mean.overlapped_comm);
  CHECK(one.metrics.step_s < none.metrics.step_s);
  CHECK(two.metrics.step_s <= one.metrics.step_s);
  for (const auto* r : {&none, &one, &two}) {
    const auto& b = r->metrics.per_device[0];
    CHECK(b.compute + b.exposed_comm + b.bubble + b.other_idle ==
          doctest::Approx(r->metrics.step_s).epsilon(1e-9));
  }
}

TEST_CASE("A scenario's collective choice reaches the simulation and the roofline") {
  // DeepSeek-V3 under ZeRO-3: its gathers and scatters hierarchical (phases one after another)
  // rather than the tuner's rail-aligned rings: a different step, and the roofline's rows say so.
  auto spec = config::load_scenario(stepsim::test::source_path("scenarios/deepseek-v3-zero3.yaml"));
  const double tuned = run::simulate_step(spec).metrics.step_s;
  auto& zero = spec.collectives[static_cast<int>(spec::TrafficKind::zero)];
  zero.algorithm = "hierarchical";
  zero.chunks = 1;
  const double fixed = run::simulate_step(spec).metrics.step_s;
  CHECK(fixed > 1.05 * tuned);
}

// Each GPU's memory over the step starts from its own rank's static state (ranks hold different
// stages: the embedding, the head and the MTP blocks sit on the ends), and the peak is the largest
// sum one GPU reaches: never one rank's static state with another's activations. DualPipeV puts
// the embedding and the head both on rank 0, whose static state is the largest, while rank n-1
// holds the most activations.
TEST_CASE("Peak memory pairs each GPU's own static state with its own activations") {
  const auto spec = load("scenarios/deepseek-v3-dualpipev.yaml");
  const auto s = run::simulate_step(spec);
  const workload::ModelCost cost(spec.model, spec.training);
  const auto& plan = s.plan();
  double peak = 0.0, worst_static = 0.0, worst_live = 0.0;
  for (int d = 0; d < s.build.graph.devices; ++d) {
    CAPTURE(d);
    const auto m = workload::memory_of_rank(spec, plan, cost, s.build.graph.rank_of(d));
    const double fixed = m.params + m.grads + m.optimizer + m.buffers;
    REQUIRE(!s.memory.per_device[d].empty());
    CHECK(s.memory.per_device[d].front().second == fixed);
    double top = 0.0;
    for (const auto& [t, bytes] : s.memory.per_device[d]) top = std::max(top, bytes);
    peak = std::max(peak, top);
    worst_static = std::max(worst_static, fixed);
    worst_live = std::max(worst_live, top - fixed);
  }
  CHECK(s.memory.peak_bytes == peak);
  // Here the largest static state and the most activations are on different ranks.
  CHECK(s.memory.peak_bytes < worst_static + worst_live - 1e9);
}
