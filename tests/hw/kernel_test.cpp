#include "sim/hw/kernel.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "sim/hw/kernel_model.hpp"

using namespace stepsim::hw;
using namespace stepsim::spec;

namespace {

// 1000 TFLOP/s BF16 peak (800 achievable), 3 TB/s of HBM, no tables but one memory row.
DeviceSpec bare_device() {
  DeviceSpec d;
  d.name = "bare";
  d.sms = 100;
  d.hbm_bandwidth = 3e12;
  d.rates[static_cast<int>(Precision::bf16)] = ComputeRate{1000e12, 800e12};
  d.tables.sustained_clock = 0.9;
  d.tables.sources = {{"m", "memory source", "", true, "lib-m"}};
  d.tables.memory = {{1e9, 2.5e12, 0, 1}};
  return d;
}

}  // namespace

TEST_CASE("Every class is listed once, by a word of its own, with a timer") {
  std::set<std::string> words;
  for (const KernelClassDef* c : kKernelClasses) {
    CHECK(words.insert(std::string(c->word)).second);
    REQUIRE(static_cast<bool>(c->timer));
    REQUIRE(static_cast<bool>(c->chart_name));
    REQUIRE(static_cast<bool>(c->shape));
  }
  CHECK(words == std::set<std::string>{"gemm", "attention", "memory"});
}

TEST_CASE("Each class names its kernels for listings and the roofline chart") {
  Kernel g;
  g.cls = &kGemmClass;
  g.precision = Precision::fp8;
  g.m = 4096, g.n = 7168, g.k = 2048, g.groups = 8;
  CHECK(g.cls->chart_name(g) == "grouped GEMM fp8");
  CHECK(g.cls->shape(g) == "8x4096x7168x2048");
  Kernel a;
  a.cls = &kAttentionClass;
  a.backward = a.causal = true;
  a.seq = 4095.6, a.head_dim = 192;
  CHECK(a.cls->chart_name(a) == "attention bwd bf16");
  CHECK(a.cls->shape(a) == "s4096 d192 causal");
  const Kernel m;  // a kernel is memory-bound unless it says otherwise
  CHECK(m.cls == &kMemoryClass);
  CHECK(m.cls->chart_name(m) == "memory-bound");
  CHECK(m.cls->shape(m).empty());
  CHECK_FALSE(m.cls->listed_precision);
  CHECK(pass_of(g, true) == "fprop");
  CHECK(pass_of(a, true) == "backward");
}

TEST_CASE("A class without rows runs at the achievable rate; memory at its measured bandwidth") {
  const DeviceSpec d = bare_device();
  const TableKernelModel model(d);
  Kernel g;
  g.cls = &kGemmClass;
  g.m = g.n = g.k = 8192;
  g.flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  const KernelEstimate e = model.explain(g, 0.5);
  CHECK(e.rate == doctest::Approx(800e12 * 0.9 * 0.5));
  CHECK(e.source == "device");
  CHECK(e.rule.find("no gemm table for bf16") == 0);
  Kernel copy;
  copy.hbm_bytes = 1e9;
  const KernelEstimate c = model.explain(copy, 0.5);
  CHECK(c.rate == doctest::Approx(2.5e12));  // the SM share does not slow HBM
  CHECK(c.source == "m");
  CHECK(model.sm_seconds(copy, 0.5) == 0.0);
  CHECK(model.math_seconds(copy, 0.5) == 0.0);
  CHECK(model.hbm_bandwidth() == doctest::Approx(2.5e12));
}
