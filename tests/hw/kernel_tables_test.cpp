// The shipped calibration tables: each reproduces its own rows, and leaving a row out predicts
// it from the others within 10 % wherever that is an interpolation (the row inside the others'
// range in every coordinate); rows at the edge of a table are extrapolations, reported.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/config/load.hpp"
#include "sim/hw/kernel_model.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

spec::DeviceSpec h800() {
  return config::load_device(test::source_path("topologies/h800.yaml"));
}

hw::Kernel attention_of(const spec::AttentionRow& r) {
  hw::Kernel k;
  k.cls = &hw::kAttentionClass;
  k.precision = r.precision;
  k.backward = r.backward;
  k.causal = r.causal;
  k.head_dim = r.head_dim;
  k.seq = r.seq;
  k.flops = 1e12 / (r.backward ? 1.25 : 1.0);  // 1 TFLOP in FlashAttention's convention
  return k;
}

// The rate the model gives, as the table would have measured it: compared at the clock the
// model runs the row's shape at (sustained where the SMs bind).
double burst_rate(const spec::DeviceSpec& d, const hw::Kernel& k, double hw_flops) {
  const hw::TableKernelModel m(d);
  double clock = d.tables.sustained_clock;
  if (k.cls == &hw::kGemmClass) {
    const double in = spec::bytes_per_element(k.precision);
    const double bytes = k.groups * (k.m * k.k * in + k.n * k.k * in + k.m * k.n * 2.0);
    if (k.flops / bytes * d.hbm_bandwidth < d.rate(k.precision).peak_flops) clock = 1.0;
  }
  return hw_flops / m.seconds(k, 1.0) / clock;
}

bool inside(double v, double lo, double hi) {
  return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
}

}  // namespace

TEST_CASE("Every shipped table reproduces its own rows") {
  for (const char* dev : {"topologies/h800.yaml", "topologies/h100.yaml", "topologies/a100.yaml"}) {
    spec::DeviceSpec d = config::load_device(test::source_path(dev));
    const hw::TableKernelModel m(d);
    CAPTURE(dev);
    REQUIRE(!d.tables.sources.empty());
    for (const auto& r : d.tables.gemm) {
      CAPTURE(r.line);
      // Each library's rows, with that library chosen.
      d.tables.gemm_library = d.tables.sources[r.source].library;
      const hw::TableKernelModel chosen(d);
      const hw::Kernel k = hw::gemm_kernel(r);
      // Burst rows run at the sustained clock where the SMs bind (not where HBM does).
      const double in = spec::bytes_per_element(r.precision);
      const double bytes = r.groups * (r.m * r.k * in + r.n * r.k * in + r.m * r.n * 2.0);
      const bool compute_bound =
          k.flops / bytes * d.hbm_bandwidth >= d.rate(r.precision).peak_flops;
      const double clock =
          d.tables.sources[r.source].sustained || !compute_bound ? 1.0 : d.tables.sustained_clock;
      CHECK(k.flops / chosen.seconds(k, 1.0) == doctest::Approx(r.rate * clock).epsilon(1e-9));
    }
    for (const auto& r : d.tables.attention) {
      CAPTURE(r.line);
      d.tables.attention_library = d.tables.sources[r.source].library;
      const hw::TableKernelModel chosen(d);
      const hw::Kernel k = attention_of(r);
      CHECK(1e12 / chosen.seconds(k, 1.0) ==
            doctest::Approx(r.rate * d.tables.sustained_clock).epsilon(1e-9));
    }
    for (const auto& r : d.tables.memory) {
      hw::Kernel k;
      k.hbm_bytes = r.bytes;
      k.pattern = r.pattern;
      CHECK(r.bytes / m.seconds(k, 1.0) == doctest::Approx(r.bandwidth).epsilon(1e-9));
    }
  }
}

// Leaves out each row of the GEMM table `name` and predicts it from the rest of its precision and
// pass; returns how many of its rows were interpolations.
static int gemm_leave_one_out(const std::string& name) {
  const spec::DeviceSpec full = h800();
  int interpolated = 0;
  for (std::size_t i = 0; i < full.tables.gemm.size(); ++i) {
    const spec::GemmRow row = full.tables.gemm[i];
    if (full.tables.sources[row.source].name != name) continue;
    spec::DeviceSpec d = full;
    d.tables.gemm.erase(d.tables.gemm.begin() + static_cast<long>(i));
    d.tables.gemm_library = full.tables.sources[row.source].library;
    bool in = true;
    for (auto dim : {&spec::GemmRow::m, &spec::GemmRow::n, &spec::GemmRow::k}) {
      double lo = 1e300, hi = 0;
      for (const auto& r : d.tables.gemm)
        if (r.precision == row.precision && r.pass == row.pass &&
            d.tables.sources[r.source].library == d.tables.gemm_library)
          lo = std::min(lo, r.*dim), hi = std::max(hi, r.*dim);
      in = in && inside(row.*dim, lo, hi);
    }
    const double predicted = burst_rate(d, hw::gemm_kernel(row), hw::gemm_kernel(row).flops);
    const double error = predicted / row.rate - 1.0;
    MESSAGE(name << " " << row.groups << "x" << row.m << "x" << row.n << "x" << row.k << ": "
                 << row.rate / 1e12 << " predicted " << predicted / 1e12 << " ("
                 << std::round(error * 1000) / 10 << " %"
                 << std::string(in ? ")" : ", extrapolated)"));
    if (!in) continue;
    ++interpolated;
    CHECK(std::abs(error) <= 0.10);
  }
  return interpolated;
}

TEST_CASE("Leave one out: the DeepGEMM table within 10 % where it interpolates") {
  CHECK(gemm_leave_one_out("deepgemm") >= 6);
}

TEST_CASE("Leave one out: the DeepGEMM weight-gradient table within 10 % where it interpolates") {
  CHECK(gemm_leave_one_out("deepgemm-wgrad") >= 6);
}

TEST_CASE("Leave one out: the CUTLASS FP8 table within 10 % where it interpolates") {
  CHECK(gemm_leave_one_out("cutlass-fp8") >= 6);
}

// Leaves out each row of the attention table `name` of the device in `file` and predicts it from
// the rest of its library, pass, causality and head dimension; returns the interpolated rows.
static int attention_leave_one_out(const char* file, const std::string& name) {
  const spec::DeviceSpec full = config::load_device(test::source_path(file));
  int interpolated = 0;
  for (std::size_t i = 0; i < full.tables.attention.size(); ++i) {
    const spec::AttentionRow row = full.tables.attention[i];
    if (full.tables.sources[row.source].name != name) continue;
    spec::DeviceSpec d = full;
    d.tables.attention.erase(d.tables.attention.begin() + static_cast<long>(i));
    d.tables.attention_library = full.tables.sources[row.source].library;
    double lo = 1e300, hi = 0;
    for (const auto& r : d.tables.attention)
      if (r.backward == row.backward && r.causal == row.causal && r.head_dim == row.head_dim &&
          d.tables.sources[r.source].library == d.tables.attention_library)
        lo = std::min(lo, r.seq), hi = std::max(hi, r.seq);
    const bool in = inside(row.seq, lo, hi);
    const double predicted = burst_rate(d, attention_of(row), 1e12);
    const double error = predicted / row.rate - 1.0;
    MESSAGE(name << " " << std::string(row.backward ? "bwd" : "fwd")
                 << std::string(row.causal ? " causal" : "") << " d" << row.head_dim << " s"
                 << row.seq << ": " << row.rate / 1e12 << " predicted " << predicted / 1e12 << " ("
                 << std::round(error * 1000) / 10 << " %"
                 << std::string(in ? ")" : ", extrapolated)"));
    if (!in) continue;
    ++interpolated;
    CHECK(std::abs(error) <= 0.10);
  }
  return interpolated;
}

TEST_CASE("Leave one out: the FlashAttention tables within 10 % where they interpolate") {
  CHECK(attention_leave_one_out("topologies/h800.yaml", "fa3") >= 16);
  CHECK(attention_leave_one_out("topologies/h800.yaml", "fa2-h100") >= 30);
  CHECK(attention_leave_one_out("topologies/a100.yaml", "fa2-a100") >= 20);
}

// Leaves out each row of the memory table `name` of the device in `file` and predicts it from the
// rows left of its access pattern; returns how many of its rows were interpolations (a row outside
// the range of the rest is reported, not checked, unless the table has two rows: then each must
// predict the other).
static int memory_leave_one_out(const char* file, const std::string& name) {
  const spec::DeviceSpec full = config::load_device(test::source_path(file));
  int interpolated = 0, rows = 0;
  for (const auto& r : full.tables.memory) rows += full.tables.sources[r.source].name == name;
  for (std::size_t i = 0; i < full.tables.memory.size(); ++i) {
    const spec::MemoryRow row = full.tables.memory[i];
    if (full.tables.sources[row.source].name != name) continue;
    spec::DeviceSpec d = full;
    d.tables.memory.erase(d.tables.memory.begin() + static_cast<long>(i));
    double lo = 1e300, hi = 0;
    for (const auto& r : d.tables.memory)
      if (r.pattern == row.pattern) lo = std::min(lo, r.bytes), hi = std::max(hi, r.bytes);
    const bool in = inside(row.bytes, lo, hi);
    const hw::TableKernelModel m(d);
    hw::Kernel k;
    k.hbm_bytes = row.bytes;
    k.pattern = row.pattern;
    const double predicted = row.bytes / (m.seconds(k, 1.0) - d.kernel_gap_s);
    const double error = predicted / row.bandwidth - 1.0;
    MESSAGE(name << " " << row.bytes / 1e6 << " MB: " << row.bandwidth / 1e9 << " GB/s predicted "
                 << predicted / 1e9 << " (" << std::round(error * 1000) / 10 << " %"
                 << std::string(in ? ")" : ", extrapolated)"));
    if (!in && rows != 2) continue;
    interpolated += in;
    CHECK(std::abs(error) <= 0.10);
    // Predicted from the rows of its own pattern.
    CHECK(m.explain(k, 1.0).rule.find(row.pattern == spec::MemoryPattern::copy ? "" : name) !=
          std::string::npos);
  }
  return rows == 2 ? 2 : interpolated;
}

TEST_CASE("Leave one out: the memory tables within 10 % where they interpolate") {
  CHECK(memory_leave_one_out("topologies/h800.yaml", "torchao-cast") == 2);
  CHECK(memory_leave_one_out("topologies/h800.yaml", "torchao-cast-transpose") == 2);
  CHECK(memory_leave_one_out("topologies/h800.yaml", "liger-copy") >= 5);
  CHECK(memory_leave_one_out("topologies/h800.yaml", "liger-rmsnorm") >= 3);
  CHECK(memory_leave_one_out("topologies/a100.yaml", "liger-rmsnorm-a100") >= 4);
  CHECK(memory_leave_one_out("topologies/a100.yaml", "gpu-benches-a100-copy") >= 2);
}

TEST_CASE("A GEMM library's grid: DeepGEMM's persistent, cuBLAS's one CTA per tile") {
  const spec::DeviceSpec d = h800();
  const hw::TableKernelModel m(d);
  hw::Kernel fp8 =
      hw::gemm_kernel({spec::Precision::fp8, spec::GemmPass::any, 4096, 7168, 16384, 1});
  hw::Kernel bf16 = fp8;
  bf16.precision = spec::Precision::bf16;
  CHECK(m.persistent(fp8));
  CHECK_FALSE(m.persistent(bf16));
  const auto r = m.run_times({fp8, bf16}, 1.0);
  CHECK(r.sm_persistent == doctest::Approx(m.sm_seconds(fp8, 1.0)));
  CHECK(r.sm_scaled == doctest::Approx(m.sm_seconds(bf16, 1.0)));
  CHECK(r.persistent_square_sum == doctest::Approx(std::pow(m.seconds(fp8, 1.0), 2)));
  try {
    config::load_device(test::source_path("topologies/h800.yaml"),
                        {config::parse_override(
                            "kernel_tables=[{name: t, source: s, clock: burst, kind: attention, "
                            "precision: bf16, grid: persistent, rows: []}]")});
    FAIL("accepted a grid on an attention table");
  } catch (const engine::UserError& e) {
    CHECK(e.message().find("only a gemm table has a grid") != std::string::npos);
  }
}
