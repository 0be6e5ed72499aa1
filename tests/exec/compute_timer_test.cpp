// The compute works' times (exec/compute_timer.hpp): a tile grid's SM stretch is fitted to the
// kernel model's own time on the SMs the program's largest communication kernel leaves.
#include "sim/exec/compute_timer.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

hw::Kernel gemm(double m, double n, double k) {
  hw::Kernel g;
  g.cls = &hw::kGemmClass;
  g.m = m, g.n = n, g.k = k;
  g.flops = 2.0 * m * n * k;
  return g;
}

// One chain of one compute work; a tail collective of 24 channels (24 CTAs).
workload::StepProgram program(std::vector<hw::Kernel> kernels) {
  workload::StepProgram p;
  workload::Work w;
  w.kernels = std::move(kernels);
  p.chains = {{w}};
  workload::TailWork t;
  t.work.stream = workload::StreamKind::dp;
  t.work.kind = workload::StepOpKind::dp_grads;
  workload::CollectiveWork c;
  c.options.channels = 24;
  t.work.collectives = {c};
  p.tail = {{t}};
  return p;
}

}  // namespace

TEST_CASE("A one-wave GEMM beside 24 CTAs: the fit gives the kernel model's two waves") {
  const spec::ClusterSpec h100 =
      config::load_cluster(test::source_path("topologies/h100-256x8-rail.yaml"), {});
  REQUIRE(h100.device.sms == 132);
  // 12 x 11 = 132 output tiles of 128 x 128: one wave on 132 SMs, two on the 108 left.
  const std::vector<hw::Kernel> ks{gemm(1536, 1408, 16384)};
  const workload::StepProgram p = program(ks);
  exec::ComputeTimer timer(p, h100);
  const auto& r = timer.times(0, 0);
  const hw::TableKernelModel model(h100.device);
  const double at_108 = model.run_times(ks, 108.0 / 132.0).seconds;
  CHECK(r.seconds + r.sm_scaled * (132.0 / 108.0 - 1.0) == doctest::Approx(at_108).epsilon(1e-12));
  CHECK(at_108 / r.seconds == doctest::Approx(2.0).epsilon(0.01));
  CHECK(r.sm_persistent == 0.0);
  // A copy kernel waits on HBM whatever the SMs.
  hw::Kernel copy;
  copy.hbm_bytes = 1e9;
  const workload::StepProgram q = program({copy});
  exec::ComputeTimer copies(q, h100);
  CHECK(copies.times(0, 0).sm_scaled == 0.0);
}

TEST_CASE("A framework's host time per op: small kernels issue one per launch overhead plus it") {
  const spec::ClusterSpec h100 =
      config::load_cluster(test::source_path("topologies/h100-256x8-rail.yaml"), {});
  // Ten small GEMMs, each far shorter than the host's time to issue the next.
  const std::vector<hw::Kernel> ks(10, gemm(256, 256, 256));
  workload::StepProgram p = program(ks);
  const hw::TableKernelModel model(h100.device);
  const double last = model.seconds(ks.back(), 1.0);
  const double launch = h100.device.launch_overhead_s;
  REQUIRE(launch > 0.0);
  REQUIRE(last < launch);
  exec::ComputeTimer bare(p, h100);
  CHECK(bare.times(0, 0).seconds == doctest::Approx(9 * launch + last).epsilon(1e-12));
  p.host_per_op_s = 4.5e-6;  // eager PyTorch's fixed overhead per op (the Megatron presets' figure)
  exec::ComputeTimer eager(p, h100);
  CHECK(eager.times(0, 0).seconds == doctest::Approx(9 * (launch + 4.5e-6) + last).epsilon(1e-12));
  // One large GEMM: the host is far ahead, the overhead hidden.
  const workload::StepProgram big = program({gemm(1536, 1408, 16384)});
  workload::StepProgram big_eager = big;
  big_eager.host_per_op_s = 4.5e-6;
  CHECK(exec::ComputeTimer(big_eager, h100).times(0, 0).seconds ==
        exec::ComputeTimer(big, h100).times(0, 0).seconds);
}
