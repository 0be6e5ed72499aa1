#include "sim/workload/kernel_time.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using namespace stepsim::workload;

namespace {

const OpCost& op_named(const LayerCost& l, const std::string& name) {
  for (const auto& op : l.ops)
    if (op.name == name) return op;
  FAIL("no op " << name);
  return l.ops.front();
}

}  // namespace

TEST_CASE(
    "GPT-3 175B on A100, TP8 without sequence parallelism: the GELU is split by tp, the norms are "
    "not") {
  const auto s = config::load_scenario(test::source_path("scenarios/gpt3-175b-a100.yaml"));
  REQUIRE(s.parallel.tp == 8);
  REQUIRE_FALSE(s.parallel.sequence_parallel);
  const ModelCost cost(s.model, s.training);
  const auto& dev = s.cluster.device;
  const double tokens = 2048.0 / 8;  // one sequence per micro-batch, split over tp
  const hw::RooflineKernelModel model(dev);
  const KernelContext ctx{&model, tokens, 8, 1, false, Precision::bf16, 1.0};
  // GELU over the column-parallel up projection's 49152/8 outputs: read and write 2 B each.
  const double gelu_bytes = 2048.0 * (49152.0 + 49152.0) * 2.0 / 8.0;
  const KernelTime gelu =
      kernel_time(op_named(cost.layers()[0], "mlp_act"), Pass::forward, false, ctx);
  CHECK(gelu.bytes == doctest::Approx(gelu_bytes));
  CHECK(gelu.seconds == doctest::Approx(gelu_bytes / dev.hbm_bandwidth + dev.launch_overhead_s));
  CHECK(gelu.seconds * 1e6 ==
        doctest::Approx(27.7).epsilon(0.01));  // was 200.5 us: charged tp times over
  // The LayerNorm before it runs on all 2048 tokens on every rank (read and write 12288 values).
  const KernelTime norm =
      kernel_time(op_named(cost.layers()[0], "mlp_norm"), Pass::forward, false, ctx);
  const double norm_acts = 2048.0 * 2.0 * 12288 * 2.0,
               norm_params = 2.0 * 12288 / 8 * 2.0;  // gain and bias
  CHECK(norm.bytes == doctest::Approx(norm_acts + norm_params));
  // With sequence parallelism the norm is split too.
  KernelContext sp = ctx;
  sp.sequence_parallel = true;
  CHECK(kernel_time(op_named(cost.layers()[0], "mlp_norm"), Pass::forward, false, sp).bytes ==
        doctest::Approx(norm_acts / 8 + norm_params));
}

TEST_CASE("The weight-gradient pass launches kernels only for ops with weights") {
  const auto s = config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"));
  const ModelCost cost(s.model, s.training);
  const hw::RooflineKernelModel model(s.cluster.device);
  const KernelContext ctx{&model, 4096.0, 1, 64, false, Precision::bf16, 1.0};
  const LayerCost& moe = cost.layers().back();
  for (const char* weightless : {"attn_core", "expert_act", "shared_act"}) {
    CAPTURE(weightless);
    const KernelTime w = kernel_time(op_named(moe, weightless), Pass::weight, false, ctx);
    CHECK(w.seconds == 0.0);
    CHECK(w.bytes == 0.0);
    // Its input gradient still costs: 2x the forward's bytes, and the weight gradient nothing more.
    const double fwd = kernel_time(op_named(moe, weightless), Pass::forward, false, ctx).bytes;
    CHECK(kernel_time(op_named(moe, weightless), Pass::backward, false, ctx).bytes ==
          doctest::Approx(2 * fwd));
    CHECK(kernel_time(op_named(moe, weightless), Pass::backward_weight, false, ctx).bytes ==
          doctest::Approx(2 * fwd));
  }
  const KernelTime w = kernel_time(op_named(moe, "q_up"), Pass::weight, false, ctx);
  CHECK(w.seconds > 0.0);
  CHECK(w.flops == doctest::Approx(4096.0 * op_named(moe, "q_up").w_flops));
  // A recomputed op adds its forward to the input gradient: FLOPs and bytes.
  const auto& swiglu = op_named(moe, "expert_act");
  CHECK(kernel_time(swiglu, Pass::backward, true, ctx).bytes ==
        doctest::Approx(1.5 * kernel_time(swiglu, Pass::backward, false, ctx).bytes));
}
