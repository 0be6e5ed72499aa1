// The bound of a prepared step (run/pipeline.hpp: prepare, then analysis::roofline as a fold over
// its program), on built-in and shipped scenarios.
#include "sim/run/pipeline.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using stepsim::test::source_path;

namespace {
run::Bounded bounded(const spec::ScenarioSpec& s) {
  run::Limits bound_only;
  bound_only.max_ops = 0.0;
  return run::bound(run::prepare(s, bound_only));
}
run::Bounded bounded(const std::string& file, const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> o;
  for (const auto& s : sets) o.push_back(config::parse_override(s));
  return bounded(config::load_scenario(source_path(file), o));
}
analysis::Roofline of(const std::string& file, const std::vector<std::string>& sets = {}) {
  return bounded(file, sets).roofline;
}
analysis::Roofline roofline_of(const spec::ScenarioSpec& s) {
  return bounded(s).roofline;
}
}  // namespace

TEST_CASE("Closed form on one node: compute = FLOPs / achievable rate, no NIC traffic") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.zero = 0;
  const analysis::Roofline r = roofline_of(s);
  const workload::ModelCost cost(s.model, s.training);
  const double tokens_per_gpu = 64.0 * 1024 / 8;
  CHECK(r.flops_per_gpu == doctest::Approx(cost.flops_per_token() * tokens_per_gpu));
  // No kernel tables: the achievable rate, all SMs, below it only skinny GEMMs under their memory
  // roofline.
  CHECK(r.compute_s >= r.flops_per_gpu / 500e12 * (1.0 - 1e-12));
  CHECK(r.compute_s == doctest::Approx(r.flops_per_gpu / 500e12).epsilon(0.02));
  CHECK(r.compute_peak_s == doctest::Approx(r.flops_per_gpu / 1000e12));
  CHECK(r.ib_s == 0.0);
  // Plain DP: one ring all-reduce of fp32 gradients inside the node: 2·7/8·4·P bytes.
  CHECK(r.comm_bytes.nvlink == doctest::Approx(2.0 * 7.0 / 8.0 * 4.0 * cost.params_total()));
  CHECK(r.nvlink_s == doctest::Approx(r.comm_bytes.nvlink / 200e9));
  CHECK(r.bound_s == doctest::Approx(std::max({r.compute_s, r.hbm_s, r.nvlink_s})));
}

TEST_CASE("Communication SMs slow compute by SMs / (SMs - comm_sms)") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  const double base = roofline_of(s).compute_s;
  s.parallel.comm_sms = 33;
  CHECK(roofline_of(s).compute_s == doctest::Approx(base * 132.0 / 99.0));
}

TEST_CASE("The seed's verdict: DualPipe compute-bound, ZeRO-3 communication-bound") {
  const auto dual = of("scenarios/deepseek-v3-dualpipe.yaml");
  CHECK(dual.limited_by == analysis::Resource::compute);
  CHECK(dual.comm_to_compute < 1.0);
  CHECK(bounded("scenarios/deepseek-v3-dualpipe.yaml").plan().world == 2048);
  // 250 GFLOP × 62.9 M / 2048 + recompute, without the MTP module the seed left out.
  CHECK(of("scenarios/deepseek-v3-dualpipe.yaml", {"model.mtp_layers=0"}).flops_per_gpu_mean ==
        doctest::Approx(7.7e15).epsilon(0.05));
  CHECK(dual.flops_per_gpu_mean > 7.7e15 * 1.03);
  // HBM at the measured bandwidth of a memory-bound kernel (FlashMLA's 3000 GB/s), and at 3.35
  // TB/s.
  CHECK(dual.hbm_s == doctest::Approx(dual.hbm_bytes / 3000e9));
  CHECK(dual.hbm_peak_s == doctest::Approx(dual.hbm_bytes / 3.35e12));

  const auto z3 = of("scenarios/deepseek-v3-zero3.yaml");
  CHECK(z3.comm_to_compute >= 2.0);
  CHECK(z3.ib_s >= 2.0 * z3.compute_s);
  CHECK(z3.limited_by != analysis::Resource::compute);
  // BF16 GEMMs make compute slower, so communication dominates less.
  const auto z3_bf16 = of("scenarios/deepseek-v3-zero3.yaml", {"training.precision.gemm=bf16"});
  CHECK(z3_bf16.compute_s > z3.compute_s);
  CHECK(z3_bf16.comm_to_compute < z3.comm_to_compute);
}

TEST_CASE(
    "The published DeepSeek-V3 layout fits in an H800; its memory savings are what make it fit") {
  // §3.3.2 of arXiv 2412.19437: SwiGLU inputs cached in FP8 and its output recomputed, on top of
  // recomputing RMSNorm and the MLA up-projections.
  const auto dual = bounded("scenarios/deepseek-v3-dualpipe.yaml").prepared.memory;
  CHECK(dual.fits());
  const auto plain =
      bounded("scenarios/deepseek-v3-dualpipe.yaml", {"training.precision.mlp_act_input=bf16",
                                                      "training.recompute=[rmsnorm, mla_up_proj]"})
          .prepared.memory;
  CHECK(plain.activations > dual.activations);
  const auto none =
      bounded("scenarios/deepseek-v3-dualpipe.yaml", {"training.recompute=none"}).prepared.memory;
  CHECK_FALSE(none.fits());
}

TEST_CASE(
    "Which link binds ZeRO-3 depends on NVLink: H800 (160 GB/s) NVLink, H100 (393 GB/s) "
    "InfiniBand") {
  // Hierarchical all-gather/reduce-scatter: 7/8 of S over NVLink, 1/8 of S over the GPU's NIC.
  const auto h800 = of("scenarios/deepseek-v3-zero3.yaml");
  CHECK(h800.limited_by == analysis::Resource::nvlink);
  CHECK(h800.comm_bytes.nvlink == doctest::Approx(7.0 * h800.comm_bytes.ib).epsilon(0.01));
  const auto h100 =
      of("scenarios/deepseek-v3-zero3.yaml", {"cluster=../topologies/h100-256x8-rail.yaml"});
  CHECK(h100.limited_by == analysis::Resource::ib);
  CHECK(h100.ib_s == doctest::Approx(h800.ib_s));
}

TEST_CASE("ZeRO-3 moves 3x the parameters per micro-batch (1.5x plain DP's all-reduce)") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.zero = 0;
  const double dp = roofline_of(s).comm_bytes.nvlink;
  s.parallel.zero = 3;
  s.training.precision.grads = spec::Precision::bf16;
  const run::Bounded b = bounded(s);
  const analysis::Roofline& z3 = b.roofline;
  const double m = static_cast<double>(b.plan().micro_batches);
  // Plain DP with fp32 grads: 2·(7/8)·4P = 7P. ZeRO-3 with bf16: 3·(7/8)·2P = 5.25P per
  // micro-batch.
  CHECK(z3.comm_bytes.nvlink == doctest::Approx(dp * m * 0.75));
}

TEST_CASE("clos3: expert all-to-all bytes that leave the pod take the aggregation tier's share") {
  // DualPipe's EP 64 spans 8 nodes: in pods of 4 nodes (2 racks) 4/7 of a GPU's dispatch and
  // combine bytes to other nodes leave its pod, through uplinks at NIC / 7.
  const std::vector<std::string> base = {"cluster=../topologies/h100-3072x8-meta-roce.yaml",
                                         "cluster.nodes=256"};
  auto with = [&](int leaves_per_pod, int o) {
    auto sets = base;
    sets.push_back("cluster.fabric.leaves_per_pod=" + std::to_string(leaves_per_pod));
    sets.push_back("cluster.fabric.pod_oversubscription=" + std::to_string(o));
    return of("scenarios/deepseek-v3-dualpipe.yaml", sets);
  };
  const analysis::Roofline one_pod = with(128, 7), loose = with(2, 1), tight = with(2, 7);
  CHECK(loose.ib_s == doctest::Approx(one_pod.ib_s).epsilon(1e-12));
  CHECK(tight.ib_s > 2.0 * loose.ib_s);
  // The bound's rank: its expert bytes over the network, 4/7 of them out of the pod, at 47 GB/s
  // / 7 per GPU.
  double expert_ib = 0.0;
  for (const analysis::TrafficRow& row : tight.traffic)
    if (row.kind == "ep_dispatch" || row.kind == "ep_combine") expert_ib += row.bytes.ib;
  REQUIRE(expert_ib > 0.0);
  CHECK(tight.ib_s == doctest::Approx(expert_ib * 4 / 7 / (47e9 / 7)).epsilon(1e-9).scale(0));
}
