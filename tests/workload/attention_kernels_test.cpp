// The unfused attention cores (training.attention_kernel): a 22B Megatron layer (Korthikanti et
// al. 2022, Table 3: 64 heads of 96, hidden 6144, sequence 2048, micro-batch 4, TP 8; attention
// dropout 0.1) moves its s x s scores through HBM exactly as counted by hand, keeps 5·a·s² bytes
// per sequence for backward (their §4.1), and reruns the same forward when recomputed.
#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/workload/op_kernels.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using namespace stepsim::workload;

namespace {

spec::ScenarioSpec megatron_22b(const std::string& kernel) {
  std::vector<config::Override> o;
  for (const char* set : {"model.hidden=6144", "model.layers=48", "model.attention.heads=64",
                          "model.attention.head_dim=96", "model.mlp.intermediate=24576",
                          "training.micro_batch=4", "parallelism.pp=1", "parallelism.schedule=none",
                          "parallelism.virtual_stages=1", "training.attention_dropout=0.1"})
    o.push_back(config::parse_override(set));
  o.push_back(config::parse_override("training.attention_kernel=" + kernel));
  return config::load_scenario(test::source_path("scenarios/gpt3-175b-a100.yaml"), o);
}

struct Layer {
  explicit Layer(const std::string& kernel)
      : spec(megatron_22b(kernel)),
        plan(make_plan(spec)),
        cost(spec.model, spec.training),
        ctx(kernel_context(spec.model, spec.training, plan.tokens_per_micro_batch, plan.tp, plan.ep,
                           spec.parallel.sequence_parallel)) {
    for (const auto& op : cost.layers()[0].ops)
      if (op.cls == OpClass::attention_core) core = &op;
    REQUIRE(core);
  }
  double bytes(Phase pass) const {
    double b = 0.0;
    for (const auto& k : op_kernels(*core, pass, ctx)) b += k.hbm_bytes;
    return b;
  }
  spec::ScenarioSpec spec;
  ParallelPlan plan;
  ModelCost cost;
  KernelContext ctx;
  const OpCost* core = nullptr;
};

// Per GPU: b = 4 sequences x a = 64 / 8 heads, s = 2048, d = 96, 2-byte scores.
constexpr double kS2 = 4.0 * 8 * 2048 * 2048;   // score elements
constexpr double kQ = 4.0 * 8 * 2048 * 96 * 2;  // bytes of one of Q, K, V, O

}  // namespace

TEST_CASE("Eager attention of a 22B Megatron layer: the s x s traffic counted by hand") {
  const Layer l("eager");
  REQUIRE(l.plan.tp == 8);
  // Forward: Q·Kᵀ writes the scores (1), scale, mask and softmax each read and write them (6),
  // dropout reads and writes them (2) and writes a one-byte mask, P·V reads them (1); plus Q and K
  // read and V read, O written.
  CHECK(l.bytes(Phase::forward) == doctest::Approx(kS2 * (2.0 * 10 + 1) + 4 * kQ));
  // Backward: dP written (1), read by dV (1); dropout backward reads dP and the mask, writes (2
  // and the mask); softmax backward reads dP and the probabilities and writes dS (3); mask and
  // scale backward (4); dQ and dK each read dS (2); plus dO read twice (dP, dV), V, K and Q read
  // and dV, dQ, dK written.
  CHECK(l.bytes(Phase::backward) == doctest::Approx(kS2 * (2.0 * 13 + 1) + 8 * kQ));
  // Kept for backward per sequence: probabilities, dropout mask and output, 5·a·s² bytes (and
  // the output O), against FlashAttention's output and log-sum-exp.
  const double tokens = 2048;
  CHECK(l.core->saved_bytes * tokens ==
        doctest::Approx(5.0 * 64 * 2048 * 2048 + tokens * 64 * 96 * 2));
}

TEST_CASE("Megatron's fused softmax saves the scale and mask passes; flash has no s x s traffic") {
  const Layer eager("eager"), fused("fused-softmax"), flash("flash");
  CHECK(eager.bytes(Phase::forward) - fused.bytes(Phase::forward) ==
        doctest::Approx(4.0 * 2 * kS2));
  CHECK(eager.bytes(Phase::backward) - fused.bytes(Phase::backward) ==
        doctest::Approx(4.0 * 2 * kS2));
  CHECK(flash.bytes(Phase::forward) == doctest::Approx(4 * kQ));  // Q, K, V read, O written
  const auto ks = op_kernels(*fused.core, Phase::forward, fused.ctx);
  REQUIRE(ks.size() == 4);
  CHECK(ks[0].name() == "attn_core QK^T");
  CHECK(ks[1].name() == "attn_core softmax");
  CHECK(ks[2].name() == "attn_core dropout");
  CHECK(ks[3].name() == "attn_core PV");
  // The batched GEMMs run all s² scores, the causal half too: 2·G·s²·d each.
  CHECK(ks[0].groups == 32);
  CHECK(ks[0].flops == doctest::Approx(2.0 * kS2 * 96));
  CHECK(ks[3].flops == doctest::Approx(2.0 * kS2 * 96));
}

TEST_CASE("Selective recomputation reruns the unfused forward ahead of its backward") {
  const Layer l("fused-softmax");
  spec::RecomputeSpec selective;
  selective.mode = spec::RecomputeMode::selective;
  std::vector<hw::Kernel> ks;
  append_pass_kernels({l.core}, Phase::backward, &selective, l.ctx, ks);
  const auto forward = op_kernels(*l.core, Phase::forward, l.ctx);
  REQUIRE(ks.size() > forward.size());
  for (std::size_t i = 0; i < forward.size(); ++i) {
    CHECK(ks[i].recompute);
    CHECK(ks[i].name() == forward[i].name() + " (recompute)");
    CHECK(ks[i].hbm_bytes == forward[i].hbm_bytes);
  }
  CHECK_FALSE(ks[forward.size()].recompute);
}
