#include "sim/workload/model_cost.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim::workload;
using namespace stepsim::spec;
using stepsim::test::source_path;

namespace {

TrainingSpec at_seq(int s) {
  TrainingSpec t;
  t.seq_len = s;
  return t;
}

ModelSpec tiny() {
  ModelSpec m;
  m.name = "tiny";
  m.hidden = 64;
  m.layers = 2;
  m.vocab = 100;
  m.attention.kind = AttentionKind::mha;
  m.attention.heads = 4;
  m.attention.kv_heads = 4;
  m.attention.head_dim = 16;
  m.mlp = {MlpKind::swiglu, 128};
  return m;
}

const OpCost& op(const LayerCost& l, const std::string& name) {
  for (const auto& o : l.ops)
    if (o.name == name) return o;
  FAIL("no op " << name);
  return l.ops.front();
}

}  // namespace

TEST_CASE("Hand-computed costs of a tiny dense model") {
  const ModelCost c(tiny(), at_seq(32));
  const LayerCost& l = c.layers()[0];
  // qkv: N = (4 + 2·4)·16 = 192, K = 64.
  CHECK(op(l, "qkv_proj").fwd_flops == 2.0 * 192 * 64);
  CHECK(op(l, "qkv_proj").b_flops == 2.0 * 192 * 64);
  CHECK(op(l, "qkv_proj").w_flops == 2.0 * 192 * 64);
  CHECK(op(l, "qkv_proj").params == 192.0 * 64);
  // Causal attention core: keys = s/2 = 16; 2·16·4·(16+16); backward twice that, no W.
  CHECK(op(l, "attn_core").fwd_flops == 4096.0);
  CHECK(op(l, "attn_core").b_flops == 8192.0);
  CHECK(op(l, "attn_core").w_flops == 0.0);
  CHECK(op(l, "mlp_up").fwd_flops == 2.0 * 256 * 64);  // gate + up fused
  CHECK(op(l, "mlp_down").fwd_flops == 2.0 * 64 * 128);
  CHECK(op(l, "attn_norm").fwd_flops == 0.0);  // elementwise: bytes only
  CHECK(l.params() == 12288 + 4096 + 16384 + 8192 + 128);
  CHECK(l.fwd_flops() == 24576 + 4096 + 8192 + 32768 + 16384);
  CHECK(c.params_total() == 2 * 41088 + 6400 + 6400 + 64);
  CHECK(c.flops_per_token() == 2 * (3 * 81920 + 3 * 4096) + 3 * 2 * 100 * 64);
}

TEST_CASE("Non-causal attention counts every key") {
  TrainingSpec t = at_seq(32);
  t.causal = false;
  const ModelCost c(tiny(), t);
  CHECK(op(c.layers()[0], "attn_core").fwd_flops == 8192.0);
}

TEST_CASE("Recompute policies drop saved activations and add forward FLOPs") {
  const ModelCost c(tiny(), at_seq(32));
  const LayerCost& l = c.layers()[0];
  RecomputeSpec none;
  const auto kept = c.recompute(l, none);
  CHECK(kept.extra_flops == 0.0);
  double all_saved = l.input_bytes;
  for (const auto& o : l.ops) all_saved += o.saved_bytes;
  CHECK(kept.saved_bytes == all_saved);

  RecomputeSpec full{RecomputeMode::full, {}};
  CHECK(c.recompute(l, full).saved_bytes == l.input_bytes);
  CHECK(c.recompute(l, full).extra_flops == l.fwd_flops());

  RecomputeSpec sel{RecomputeMode::selective, {}};
  CHECK(c.recompute(l, sel).extra_flops == 4096.0);
  CHECK(c.recompute(l, sel).saved_bytes == all_saved - op(l, "attn_core").saved_bytes);

  RecomputeSpec norms{RecomputeMode::ops, {"rmsnorm"}};
  CHECK(c.recompute(l, norms).saved_bytes ==
        all_saved - op(l, "attn_norm").saved_bytes - op(l, "mlp_norm").saved_bytes);
}

TEST_CASE(
    "MoE saved activations by hand: FP8 dispatch copies, cached SwiGLU input, no expert outputs") {
  ModelSpec m = tiny();
  m.moe = {true, 8, 1, 2, 32, 0, 1, 0, 0, {}};  // 8 experts, 1 shared, top-2, width 32
  TrainingSpec t = at_seq(32);
  t.precision.gemm = Precision::fp8;
  t.precision.dispatch = Precision::fp8;
  const ModelCost bf16_cache(m, t);
  t.precision.mlp_act_input = Precision::fp8;
  const ModelCost fp8_cache(m, t);
  const LayerCost& a = bf16_cache.layers()[0];
  const LayerCost& b = fp8_cache.layers()[0];
  REQUIRE(a.moe);
  // Up projection: 2 dispatched FP8 copies of the 64-wide input, 2 × (2·32) outputs kept for
  // SwiGLU.
  CHECK(op(a, "expert_up").saved_bytes == 2 * 64 * 1 + 2 * 64 * 2);
  CHECK(op(b, "expert_up").saved_bytes == 2 * 64 * 1 + 2 * 64 * 1);
  CHECK(op(b, "shared_up").saved_bytes == 64 * 1);
  // Unset, it follows the activation precision.
  t.precision.mlp_act_input.reset();
  t.precision.activations = Precision::fp32;
  CHECK(op(ModelCost(m, t).layers()[0], "expert_up").saved_bytes == 2 * 64 * 1 + 2 * 64 * 4);
  // SwiGLU output (the down projection's FP8 input): 2 × 32; the expert outputs are not kept.
  CHECK(op(a, "expert_act").saved_bytes == 2 * 32 * 1);
  CHECK(op(a, "expert_down").saved_bytes == 0.0);
  // Recomputing SwiGLU drops its output and adds its (FLOP-free) forward.
  RecomputeSpec swiglu{RecomputeMode::ops, {"swiglu"}};
  CHECK(fp8_cache.recompute(b, swiglu).saved_bytes == fp8_cache.recompute(b, {}).saved_bytes -
                                                          op(b, "expert_act").saved_bytes -
                                                          op(b, "shared_act").saved_bytes);
}

TEST_CASE(
    "DeepSeek-V3 from YAML and from config.json: 671 B + MTP, 37.5 B active, 250 GFLOP/token") {
  for (const char* file : {"models/deepseek-v3.yaml", "models/deepseek-v3.config.json"}) {
    CAPTURE(file);
    ModelSpec m = stepsim::config::load_model(source_path(file));
    REQUIRE(m.mtp_layers == 1);
    const ModelCost c(m, at_seq(4096));
    CHECK(c.params_main() == doctest::Approx(671.0e9).epsilon(0.005));
    // The MTP module: one MoE block (attention 187.1 M, 256 + 1 experts of 44.04 M, router) and
    // the 2h x h projection; the embedding and head are shared.
    const double block = c.layers()[3].params();
    CHECK(c.params_mtp() == doctest::Approx(block + 2.0 * 7168 * 7168 + 2 * 7168).epsilon(1e-9));
    CHECK(c.params_mtp() == doctest::Approx(11.6e9).epsilon(0.01));
    CHECK(c.params_total() == doctest::Approx(c.params_main() + c.params_mtp()));
    CHECK(c.params_active() == doctest::Approx(37.5e9).epsilon(0.01));
    // DeepSeek's 250 GFLOP per token is the main model's; the MTP module adds its block, its
    // projection and a second pass through the head.
    m.mtp_layers = 0;
    CHECK(ModelCost(m, at_seq(4096)).flops_per_token() == doctest::Approx(250e9).epsilon(0.02));
    CHECK(c.flops_per_token() > 1.03 * ModelCost(m, at_seq(4096)).flops_per_token());
    // MLA per layer: q_a + q_b + kv_a + kv_b + o ≈ 187.1 M (+ two small norms).
    double mla = 0.0;
    for (const auto& o : c.layers()[0].ops)
      if (o.name == "q_down" || o.name == "q_up" || o.name == "kv_down" || o.name == "kv_up" ||
          o.name == "out_proj")
        mla += o.params;
    CHECK(mla == doctest::Approx(187.1e6).epsilon(0.001));
    CHECK(c.layers()[2].moe == false);
    CHECK(c.layers()[3].moe == true);
  }
}

TEST_CASE("Other shipped models match their published sizes") {
  struct Case {
    const char* file;
    double total;
    double active;
  };
  for (const Case& k : {Case{"models/llama-3.1-405b.yaml", 405e9, 405e9},
                        Case{"models/gpt3-175b.yaml", 175e9, 175e9},
                        Case{"models/mixtral-8x22b.yaml", 141e9, 39e9}}) {
    CAPTURE(k.file);
    const ModelCost c(stepsim::config::load_model(source_path(k.file)), at_seq(4096));
    CHECK(c.params_total() == doctest::Approx(k.total).epsilon(0.01));
    CHECK(c.params_active() == doctest::Approx(k.active).epsilon(0.01));
  }
}
