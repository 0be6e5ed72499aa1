// Expert load in the step (workload/expert_load.hpp): with skewed routing the dispatch and combine
// carry the busiest GPU's bytes, the experts' kernels its rows, and the step grows.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/workload/expert_load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

TEST_CASE("Zipf routing: the exchanges carry the busiest GPU's bytes and the step grows") {
  const std::string file = test::source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const auto balanced = config::load_scenario(file);
  const auto skewed = config::load_scenario(
      file, {config::parse_override("model.moe.routing={kind: zipf, s: 0.5, seed: 3}")});
  const double f = workload::expert_load_factor(skewed.model.moe, skewed.parallel.ep, 4096.0);
  MESSAGE("zipf(0.5) over 256 experts on EP64: the busiest GPU takes " << f << "x the mean");
  REQUIRE(f > 1.1);
  const auto a = run::simulate_step(balanced), b = run::simulate_step(skewed);
  auto dispatch_bytes = [](const run::Result& s) {
    const auto& g = s.build.graph;
    for (std::size_t i = 0; i < g.ops.size(); ++i)
      if (g.ops[i].kind == workload::StepOpKind::ep_dispatch) return g.facts[i].bytes;
    FAIL("no dispatch");
    return 0.0;
  };
  CHECK(dispatch_bytes(b) == doctest::Approx(dispatch_bytes(a) * f));
  CHECK(b.metrics.step_s > a.metrics.step_s);
  // The model's FLOPs (what MFU counts) do not change: only the time they take.
  CHECK(b.figures.tflops_per_gpu < a.figures.tflops_per_gpu);
  // 64 redundant slots, EPLB-placed, take back most of the skew.
  const auto eplb = config::load_scenario(
      file,
      {config::parse_override("model.moe.routing={kind: zipf, s: 0.5, seed: 3, redundant: 64}")});
  const double g = workload::expert_load_factor(eplb.model.moe, eplb.parallel.ep, 4096.0);
  MESSAGE("with 64 redundant experts: " << g << "x");
  CHECK(g < f);
  const auto replicated = run::simulate_step(eplb);
  CHECK(replicated.metrics.step_s < b.metrics.step_s);
  // What it costs: each slot holds a whole expert, (256 + 64) / 256 of the routed parameters per
  // GPU, with their gradients and optimizer state.
  CHECK(replicated.memory.peak_bytes > b.memory.peak_bytes);
  CHECK(replicated.plan().expert_slots_per_expert == doctest::Approx(1.25));
  // Slots the group cannot share evenly are refused.
  const auto odd = config::load_scenario(
      file, {config::parse_override("model.moe.routing={kind: zipf, redundant: 3}")});
  CHECK_THROWS_WITH_AS(run::simulate_step(odd), doctest::Contains("not divisible by ep = 64"),
                       engine::UserError);
}

TEST_CASE("Zipf routing: the mean GPU waits 1 - 1/f of the experts' kernels, as synchronisation") {
  const std::string file = test::source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const auto balanced = run::simulate_step(config::load_scenario(file));
  const auto spec = config::load_scenario(
      file, {config::parse_override("model.moe.routing={kind: zipf, s: 0.5, seed: 3}")});
  const double f = workload::expert_load_factor(spec.model.moe, spec.parallel.ep, 4096.0);
  const auto skewed = run::simulate_step(spec);
  CHECK(balanced.metrics.mean.synchronisation == 0.0);
  // Every compute op's waiting part is 1 - 1/f of its kernels on routed token copies, timed as
  // the executor timed them.
  const hw::TableKernelModel model(spec.cluster.device);
  // Stage 1 (MoE layers; stage 0's are dense), on pipeline rank 1 under DualPipe.
  int forward1 = -1;
  for (const auto& in : skewed.prepared.program.ranks[1])
    for (const auto& c : in.chunks)
      if (c.phase == workload::Phase::forward && c.task.stage == 1) forward1 = c.chain;
  REQUIRE(forward1 >= 0);
  const auto& chain = skewed.prepared.program.chains[forward1];
  double routed = 0.0;
  for (const workload::Work& w : chain)
    for (const hw::Kernel& k : w.kernels)
      if (k.routed_copies) routed += model.seconds(k, skewed.prepared.program.sm_share);
  REQUIRE(routed > 0.0);
  int device = -1;
  for (int d = 0; d < static_cast<int>(skewed.build.graph.info.size()); ++d)
    if (skewed.build.graph.info[d].rank == 1 && device < 0) device = d;
  double waiting = 0.0;  // over the compute ops of stage 1's forward of micro-batch 0
  const auto& g = skewed.build.graph;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto& op = g.ops[i];
    if (op.device == device && op.stream == workload::StreamKind::compute && op.mb == 0 &&
        op.phase == workload::Phase::forward && op.stage == 1)
      waiting += g.facts[i].waiting_s;
  }
  CHECK(waiting == doctest::Approx((1.0 - 1.0 / f) * routed).epsilon(1e-9));
  const auto& m = skewed.metrics.mean;
  CHECK(m.synchronisation > 0.0);
  CHECK(m.compute + m.synchronisation + m.exposed_comm + m.bubble + m.other_idle ==
        doctest::Approx(skewed.metrics.step_s));
}

TEST_CASE("Loss-free balancing: one step's draw of routes makes the busiest GPU wait a little") {
  const std::string file = test::source_path("scenarios/deepseek-v3-dualpipe.yaml");
  const auto balanced = run::simulate_step(config::load_scenario(file));
  const auto spec =
      config::load_scenario(file, {config::parse_override("model.moe.routing=loss_free")});
  const auto drawn = run::simulate_step(spec);
  MESSAGE("busiest GPU x" << drawn.prepared.program.expert_load << "; step "
                          << balanced.metrics.step_s << " s -> " << drawn.metrics.step_s << " s");
  CHECK(drawn.prepared.program.expert_load > 1.005);
  CHECK(drawn.prepared.program.expert_load < 1.03);
  CHECK(drawn.metrics.step_s > balanced.metrics.step_s);
  CHECK(drawn.metrics.mean.synchronisation > 0.0);
}
