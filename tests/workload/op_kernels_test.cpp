#include "sim/workload/op_kernels.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using namespace stepsim::workload;
using namespace stepsim::spec;

namespace {

const OpCost& op_named(const LayerCost& l, const std::string& name) {
  for (const auto& op : l.ops)
    if (op.name == name) return op;
  FAIL("no op " << name);
  return l.ops.front();
}

const hw::Kernel& kernel_named(const std::vector<hw::Kernel>& ks, const std::string& name) {
  for (const auto& k : ks)
    if (k.name() == name) return k;
  FAIL("no kernel " << name);
  return ks.front();
}

bool has(const std::vector<hw::Kernel>& ks, const std::string& name) {
  for (const auto& k : ks)
    if (k.name() == name) return true;
  return false;
}

struct Fixture {
  explicit Fixture(const char* scenario)
      : spec(config::load_scenario(test::source_path(scenario))),
        plan(make_plan(spec)),
        cost(spec.model, spec.training),
        ctx(kernel_context(spec.model, spec.training, plan.tokens_per_micro_batch, plan.tp, plan.ep,
                           spec.parallel.sequence_parallel)) {}
  ScenarioSpec spec;
  ParallelPlan plan;
  ModelCost cost;
  KernelContext ctx;
};

constexpr double kFp8 = 1.0 + 4.0 / 128.0;  // an FP8 element and its share of a 1x128 scale

}  // namespace

TEST_CASE("DeepSeek-V3 (FP8, EP64): the quantisation, transposes, permutation, router and norms") {
  const Fixture f("scenarios/deepseek-v3-dualpipe.yaml");
  REQUIRE(f.plan.tp == 1);
  REQUIRE(f.ctx.local_experts == 4);
  const double t = 4096, h = 7168;
  const LayerCost& moe = f.cost.layers()[3];
  REQUIRE(moe.moe);
  // q_down's BF16 input cast to FP8 with 1x128 scales: read 2 B, write 1 B + 4/128 B per element.
  const auto q_down = op_kernels(op_named(moe, "q_down"), Phase::forward, f.ctx);
  CHECK(kernel_named(q_down, "q_down quantize input").hbm_bytes ==
        doctest::Approx(t * h * (2.0 + kFp8)));
  const hw::Kernel& g = kernel_named(q_down, "q_down fprop");
  CHECK(g.m == t);
  CHECK(g.n == 1536);
  CHECK(g.k == h);
  CHECK(g.hbm_bytes == doctest::Approx(t * h * kFp8 + 1536 * h * 1.0 + t * 1536 * 2.0));
  // The experts' up projection takes the FP8 tokens the dispatch delivered: no cast.
  const auto up = op_kernels(op_named(moe, "expert_up"), Phase::forward, f.ctx);
  CHECK_FALSE(has(up, "expert_up quantize input"));
  const hw::Kernel& gg = kernel_named(up, "expert_up fprop");
  CHECK(gg.groups == 4);
  CHECK(gg.m == t * 8 / 4);  // 8192 rows per expert
  CHECK(gg.n == 4096);
  // The down projection's input (SwiGLU output) is cast; backward gets dy in FP8 from the combine's
  // transpose and only re-tiles it as its transpose, and W re-tiles the saved FP8 input.
  const OpCost& down = op_named(moe, "expert_down");
  const double rows = t * 8;
  CHECK(kernel_named(op_kernels(down, Phase::forward, f.ctx), "expert_down quantize input")
            .hbm_bytes == doctest::Approx(rows * 2048 * (2.0 + kFp8)));
  CHECK(kernel_named(op_kernels(down, Phase::backward, f.ctx), "expert_down transpose output grad")
            .hbm_bytes == doctest::Approx(rows * h * 2.0 * kFp8));
  // A BF16 output gradient (the shared expert's) is cast and transposed in one kernel.
  CHECK(kernel_named(op_kernels(op_named(moe, "shared_down"), Phase::backward, f.ctx),
                     "shared_down quantize output grad")
            .hbm_bytes == doctest::Approx(t * h * (2.0 + 2.0 * kFp8)));
  CHECK(kernel_named(op_kernels(down, Phase::weight, f.ctx), "expert_down transpose input")
            .hbm_bytes == doctest::Approx(rows * 2048 * 2.0 * kFp8));
  // Permutation: 8 copies of every token read and written, FP8 with scales forward (the
  // dispatch's precision), BF16 backward (the combine's).
  const OpCost& perm = op_named(moe, "permute");
  CHECK(op_kernels(perm, Phase::forward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(t * 2.0 * 8 * (h + h / 128 * 4)));
  CHECK(op_kernels(perm, Phase::backward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(t * 2.0 * 8 * h * 2.0));
  CHECK(op_kernels(op_named(moe, "unpermute"), Phase::forward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(t * 2.0 * 8 * h * 2.0));
  // Router top-k over 256 fp32 scores, 8 indices and weights out.
  CHECK(op_kernels(op_named(moe, "router_topk"), Phase::forward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(t * (256 * 4.0 + 8 * 8.0)));
  // RMSNorm: read and write the hidden state, plus its 7168 BF16 weights; backward reads x and dy.
  const OpCost& norm = op_named(moe, "mlp_norm");
  CHECK(op_kernels(norm, Phase::forward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(t * 2.0 * h * 2.0 + h * 2.0));
  CHECK(op_kernels(norm, Phase::backward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(t * 3.0 * h * 2.0 + h * 2.0));
  CHECK(op_kernels(norm, Phase::weight, f.ctx).empty());
}

TEST_CASE("GPT-3 175B on A100 (BF16, TP8): no FP8 kernels; norms whole on every rank, GELU split") {
  const Fixture f("scenarios/gpt3-175b-a100.yaml");
  REQUIRE(f.plan.tp == 8);
  const LayerCost& l = f.cost.layers()[0];
  for (const auto& op : l.ops)
    for (Phase p : {Phase::forward, Phase::backward, Phase::weight})
      for (const auto& k : op_kernels(op, p, f.ctx)) {
        CAPTURE(k.name());
        CHECK(k.name().find("quantize") == std::string::npos);
        CHECK(k.name().find("transpose") == std::string::npos);
      }
  const double tokens = 2048, h = 12288;
  // GELU over the column-parallel up projection's 49152/8 outputs: read and write 2 B each.
  CHECK(op_kernels(op_named(l, "mlp_act"), Phase::forward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(tokens * 2.0 * 49152 * 2.0 / 8));
  // LayerNorm over all 2048 tokens on every rank, gain and bias split by tp.
  CHECK(op_kernels(op_named(l, "mlp_norm"), Phase::forward, f.ctx).at(0).hbm_bytes ==
        doctest::Approx(tokens * 2.0 * h * 2.0 + 2.0 * h / 8 * 2.0));
  // The QKV GEMM: every rank multiplies all 2048 tokens by its 3·12288/8 columns.
  const auto qkv = op_kernels(op_named(l, "qkv_proj"), Phase::backward_weight, f.ctx);
  const hw::Kernel& dgrad = kernel_named(qkv, "qkv_proj dgrad");
  CHECK(dgrad.m == tokens);
  CHECK(dgrad.n == h);
  CHECK(dgrad.k == 3 * h / 8);
  const hw::Kernel& wgrad = kernel_named(qkv, "qkv_proj wgrad");
  CHECK(wgrad.m == 3 * h / 8);
  CHECK(wgrad.k == tokens);
  CHECK(wgrad.flops == doctest::Approx(2.0 * tokens * 3 * h / 8 * h));
  // Learned positions: no RoPE.
  for (const auto& op : l.ops) CHECK(op.name != "rope");
}
