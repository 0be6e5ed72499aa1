#include "sim/hw/kernel_model.hpp"

#include <doctest/doctest.h>

using namespace stepsim::hw;
using namespace stepsim::spec;

namespace {

// 1000 TFLOP/s BF16 peak (800 achievable), 3 TB/s of HBM, 100 SMs, 3 us per launch, a 0.8
// sustained-clock factor; one BF16 GEMM row, one forward attention curve (causal and not), one
// backward non-causal row, one memory row.
DeviceSpec device() {
  DeviceSpec d;
  d.name = "test";
  d.sms = 100;
  d.hbm_bandwidth = 3e12;
  d.launch_overhead_s = 3e-6;
  d.rates[static_cast<int>(Precision::bf16)] = ComputeRate{1000e12, 800e12};
  KernelTables& t = d.tables;
  t.sustained_clock = 0.8;
  t.sources = {{"g", "gemm source", "", false, "lib-g"},
               {"a", "attention source", "", false, "lib-a"},
               {"m", "memory source", "", true, "lib-m"}};
  t.gemm = {{Precision::bf16, GemmPass::any, 6400, 6400, 8192, 1, 700e12, 0, 1}};
  t.attention = {{Precision::bf16, false, false, 128, 4096, 600e12, 1, 2},
                 {Precision::bf16, false, true, 128, 4096, 450e12, 1, 3},
                 {Precision::bf16, true, false, 128, 4096, 500e12, 1, 4}};
  t.memory = {{1e9, 2.7e12, 2, 5}};
  return d;
}

Kernel gemm(double m, double n, double k) {
  Kernel g;
  g.cls = &kGemmClass;
  g.m = m, g.n = n, g.k = k;
  g.flops = 2.0 * m * n * k;
  return g;
}

}  // namespace

TEST_CASE("A GEMM of a table's shape runs at its row's rate times the sustained clock") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  const Kernel g = gemm(6400, 6400, 8192);
  CHECK(m.seconds(g, 1.0) == doctest::Approx(g.flops / (700e12 * 0.8)));
  const KernelEstimate e = m.explain(g, 1.0);
  CHECK(e.rate == doctest::Approx(560e12));
  CHECK(e.rule.find("row g 6400x6400x8192") != std::string::npos);
}

TEST_CASE("Wave quantisation: a GEMM one tile wider than the SMs runs two waves") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  // 6400x6400 = 50x50 = 2500 tiles = 25 waves on 100 SMs exactly; with 80 SMs left 31.25 -> 32.
  const Kernel g = gemm(6400, 6400, 8192);
  const double full = m.seconds(g, 1.0), shared = m.seconds(g, 0.8);
  CHECK(shared / full == doctest::Approx((1.0 / 0.8) * (32.0 / 31.25)));
}

TEST_CASE("A memory-bound GEMM (few rows) runs at its bytes' pace, not the SMs'") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  const Kernel g = gemm(16, 6400, 8192);
  const double bytes = 2.0 * (16 * 8192 + 6400.0 * 8192 + 16 * 6400);
  // The row's fraction of its own bound (compute) applies to this shape's bound (memory).
  const double f = 700e12 * 0.8 / (1000e12 * 1.0);
  CHECK(m.seconds(g, 1.0) == doctest::Approx(g.flops / (f * g.flops / bytes * 3e12)).epsilon(0.02));
}

TEST_CASE("Attention: the table's rate per pass; a causal backward takes the forward's penalty") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  Kernel a;
  a.cls = &kAttentionClass;
  a.flops = 1e12;
  a.head_dim = 128;
  a.seq = 4096;
  CHECK(m.seconds(a, 1.0) == doctest::Approx(1e12 / (600e12 * 0.8)));
  a.backward = true;  // FlashAttention counts 2.5x the forward's FLOPs, the model 2x
  CHECK(m.seconds(a, 1.0) == doctest::Approx(1.25e12 / (500e12 * 0.8)));
  a.causal = true;
  CHECK(m.seconds(a, 1.0) == doctest::Approx(1.25e12 / (500e12 * 0.8 * 450.0 / 600.0)));
  CHECK(m.explain(a, 1.0).rule.find("causal penalty") != std::string::npos);
}

TEST_CASE("Memory-bound kernels at the measured bandwidth; sustained rows are not scaled") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  Kernel e;
  e.hbm_bytes = 2.7e9;
  CHECK(m.seconds(e, 1.0) == doctest::Approx(1e-3));
  CHECK(m.seconds(e, 0.5) == doctest::Approx(1e-3));  // bandwidth is not the SMs'
  CHECK(m.math_seconds(e, 1.0) == 0.0);
}

TEST_CASE("The part of a run the SMs stretch: compute-bound kernels, not those waiting on HBM") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  const Kernel big = gemm(6400, 6400, 8192), skinny = gemm(16, 6400, 8192);
  CHECK(m.sm_seconds(big, 1.0) == doctest::Approx(m.seconds(big, 1.0) - d.kernel_gap_s));
  CHECK(m.sm_seconds(skinny, 1.0) == 0.0);
  Kernel a;
  a.cls = &kAttentionClass;
  a.flops = 1e12;
  a.head_dim = 128;
  a.seq = 4096;
  CHECK(m.sm_seconds(a, 0.5) == doctest::Approx(m.seconds(a, 0.5) - d.kernel_gap_s));
  Kernel e;
  e.hbm_bytes = 2.7e9;
  CHECK(m.sm_seconds(e, 1.0) == 0.0);
  const KernelModel::RunTimes r = m.run_times({big, skinny, a, e}, 1.0);
  CHECK(r.sm_scaled == doctest::Approx(m.sm_seconds(big, 1.0) + m.sm_seconds(a, 1.0)));
  CHECK(r.seconds > r.sm_scaled);
}

TEST_CASE("A one-wave GEMM beside a communication kernel's CTAs runs two waves") {
  // As on an H100 whose 132-block GEMM meets NCCL's 24 blocks (NVIDIA developer forums, thread
  // 337991: nearly twice its time): here 100 tiles on 100 SMs, 24 taken.
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  const Kernel g = gemm(1280, 1280, 8192);
  CHECK(m.sm_seconds(g, 0.76) / m.sm_seconds(g, 1.0) == doctest::Approx(2.0));
}

TEST_CASE("No table for a class: the achievable rate under the sustained clock") {
  DeviceSpec d = device();
  d.tables.gemm.clear();
  const TableKernelModel m(d);
  const Kernel g = gemm(8192, 8192, 8192);
  CHECK(m.seconds(g, 1.0) == doctest::Approx(g.flops / (800e12 * 0.8)));
  CHECK(m.explain(g, 1.0).rule.find("no gemm table") != std::string::npos);
}

TEST_CASE("A run of short kernels is bound by the host's launches, long ones by the GPU") {
  const DeviceSpec d = device();
  const TableKernelModel m(d);
  Kernel tiny;
  tiny.hbm_bytes = 2.7e3;  // 1 ns
  const std::vector<Kernel> short_run(10, tiny);
  CHECK(m.run_seconds(short_run, 1.0) == doctest::Approx(9 * 3e-6 + 1e-9));
  Kernel big;
  big.hbm_bytes = 2.7e9;  // 1 ms each: launches hidden behind execution
  const std::vector<Kernel> long_run(3, big);
  CHECK(m.run_seconds(long_run, 1.0) == doctest::Approx(3e-3));
}

TEST_CASE("A pass with rows of its own is timed from them; the other passes from the any rows") {
  DeviceSpec d = device();
  // A weight-gradient kernel measured at 560 TFLOP/s on the shape the forward row ran at 700.
  d.tables.sources.push_back({"w", "wgrad source", "", false, "lib-g"});
  d.tables.gemm.push_back({Precision::bf16, GemmPass::wgrad, 6400, 6400, 8192, 1, 560e12, 3, 6});
  const TableKernelModel m(d);
  Kernel f = gemm(6400, 6400, 8192), g = f, w = f;
  f.role = KernelRole::fprop;
  g.role = KernelRole::dgrad;
  w.role = KernelRole::wgrad;
  const double tf = m.seconds(f, 1.0) - d.kernel_gap_s, tw = m.seconds(w, 1.0) - d.kernel_gap_s;
  CHECK(f.flops / tf == doctest::Approx(700e12 * 0.8));
  CHECK(w.flops / tw == doctest::Approx(560e12 * 0.8));
  CHECK(m.seconds(g, 1.0) == m.seconds(f, 1.0));
  CHECK(m.explain(w, 1.0).rule.find("w 6400x6400x8192") != std::string::npos);
  CHECK(m.explain(f, 1.0).rule.find("g 6400x6400x8192") != std::string::npos);
}

TEST_CASE("A precision's GEMMs are timed from one library: the chosen one, else the first") {
  DeviceSpec d = device();
  // A second library measured the same shape at 500 TFLOP/s, and only the first has wgrad rows.
  d.tables.sources.push_back({"o", "other source", "", false, "lib-o"});
  d.tables.gemm.push_back({Precision::bf16, GemmPass::any, 6400, 6400, 8192, 1, 500e12, 3, 6});
  d.tables.gemm.push_back({Precision::bf16, GemmPass::wgrad, 6400, 6400, 8192, 1, 560e12, 0, 7});
  Kernel f = gemm(6400, 6400, 8192), w = f;
  f.role = KernelRole::fprop;
  w.role = KernelRole::wgrad;
  auto rate = [&](const TableKernelModel& m, const Kernel& k) {
    return k.flops / (m.seconds(k, 1.0) - d.kernel_gap_s);
  };
  {
    const TableKernelModel first(d);  // no choice: the first library listed
    CHECK(rate(first, f) == doctest::Approx(700e12 * 0.8));
    CHECK(rate(first, w) == doctest::Approx(560e12 * 0.8));
    CHECK(first.explain(f, 1.0).library == "lib-g");
  }
  d.tables.gemm_library = "lib-o";
  const TableKernelModel chosen(d);
  CHECK(rate(chosen, f) == doctest::Approx(500e12 * 0.8));
  // Its weight gradients from its own rows of any pass, not the other library's wgrad rows.
  CHECK(rate(chosen, w) == doctest::Approx(500e12 * 0.8));
  CHECK(chosen.explain(w, 1.0).library == "lib-o");
  CHECK(chosen.explain(w, 1.0).source == "o");
  // A kernel no table covers names no library.
  Kernel x = gemm(6400, 6400, 8192);
  x.precision = Precision::fp8;
  CHECK(chosen.explain(x, 1.0).library == "generic");
}

TEST_CASE("Attention is timed from one library's rows: the chosen one, else the first") {
  DeviceSpec d = device();
  d.tables.sources.push_back({"b", "other attention", "", false, "lib-b"});
  d.tables.attention.push_back({Precision::bf16, false, false, 128, 4096, 300e12, 3, 8});
  Kernel a;
  a.cls = &kAttentionClass;
  a.head_dim = 128, a.seq = 4096;
  a.flops = 1e12;
  auto rate = [&](const TableKernelModel& m) {
    return a.flops / (m.seconds(a, 1.0) - d.kernel_gap_s);
  };
  {
    const TableKernelModel first(d);
    CHECK(rate(first) == doctest::Approx(600e12 * 0.8));
    CHECK(first.explain(a, 1.0).library == "lib-a");
  }
  d.tables.attention_library = "lib-b";
  const TableKernelModel chosen(d);
  CHECK(rate(chosen) == doctest::Approx(300e12 * 0.8));
  CHECK(chosen.explain(a, 1.0).library == "lib-b");
}

TEST_CASE("A memory-bound kernel takes its access pattern's rows, or else the copy rows") {
  DeviceSpec d = device();
  d.tables.sources.push_back({"c", "cast source", "", true, "lib-c"});
  d.tables.memory.push_back({1e9, 2.4e12, 3, 7, MemoryPattern::cast});
  const TableKernelModel m(d);
  Kernel copy, cast, transpose;
  copy.hbm_bytes = cast.hbm_bytes = transpose.hbm_bytes = 1e9;
  cast.pattern = MemoryPattern::cast;
  transpose.pattern = MemoryPattern::transpose;  // no rows of its own
  CHECK(1e9 / (m.seconds(copy, 1.0) - d.kernel_gap_s) == doctest::Approx(2.7e12));
  CHECK(1e9 / (m.seconds(cast, 1.0) - d.kernel_gap_s) == doctest::Approx(2.4e12));
  CHECK(1e9 / (m.seconds(transpose, 1.0) - d.kernel_gap_s) == doctest::Approx(2.7e12));
  CHECK(m.explain(cast, 1.0).source == "c");
  CHECK(m.explain(transpose, 1.0).source == "m");
}
