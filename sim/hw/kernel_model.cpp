#include "sim/hw/kernel_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/engine/check.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::hw {

namespace {

constexpr double kTile = 128.0;  // output tile edge of the GEMM kernels (both dimensions)

std::string tflops(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f TFLOP/s", r / 1e12);
  return b;
}

int precision_index(spec::Precision p) {
  return static_cast<int>(p);
}

}  // namespace

std::string_view to_string(KernelClass c) {
  switch (c) {
    case KernelClass::gemm:
      return "gemm";
    case KernelClass::attention:
      return "attention";
    case KernelClass::memory:
      return "memory";
  }
  STEPSIM_UNREACHABLE("unknown kernel class");
}

void Kernel::set_op(std::string_view name) {
  STEPSIM_CHECK(name.size() < op.size(), "kernel op name too long: " + std::string(name));
  op.fill('\0');
  name.copy(op.data(), name.size());
}

std::string Kernel::name() const {
  static constexpr const char* kRole[] = {"",
                                          " fprop",
                                          " dgrad",
                                          " wgrad",
                                          " quantize input",
                                          " quantize output grad",
                                          " transpose input",
                                          " transpose output grad",
                                          " backward",
                                          " fwd",
                                          " bwd",
                                          " cast + transpose",
                                          " QK^T",
                                          " PV",
                                          " scale",
                                          " mask",
                                          " softmax",
                                          " dropout",
                                          " dP",
                                          " dV",
                                          " dropout bwd",
                                          " softmax bwd",
                                          " mask bwd",
                                          " scale bwd",
                                          " dQ",
                                          " dK"};
  return std::string(op.data()) + kRole[static_cast<int>(role)] + (recompute ? " (recompute)" : "");
}

KernelModel::RunTimes KernelModel::run_times(const std::vector<Kernel>& ks, double sm_share) const {
  const double launch = launch_seconds();
  RunTimes r;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const double t = seconds(ks[i], sm_share);
    r.seconds = std::max(r.seconds, static_cast<double>(i) * launch) + t;
    r.square_sum += t * t;
    if (ks[i].routed_copies) r.routed += t;
    if (persistent(ks[i])) {
      r.sm_persistent += sm_seconds(ks[i], sm_share);
      r.persistent_square_sum += t * t;
    } else {
      r.sm_scaled += sm_seconds(ks[i], sm_share);
    }
  }
  return r;
}

TableKernelModel::TableKernelModel(const spec::DeviceSpec& device) : device_(device) {
  const spec::KernelTables& t = device.tables;
  auto library = [&](const spec::GemmRow& r) -> const std::string& {
    return t.sources[static_cast<std::size_t>(r.source)].library;
  };
  for (int p = 0; p < spec::kPrecisionCount; ++p) {
    // One library's rows: the chosen one where it has rows of this precision, else the first.
    const std::string* chosen = spec::gemm_library_for(t, static_cast<spec::Precision>(p));
    for (const spec::GemmPass pass :
         {spec::GemmPass::fprop, spec::GemmPass::dgrad, spec::GemmPass::wgrad}) {
      // The pass's own rows, else the rows of any pass.
      bool own = false;
      for (const spec::GemmRow& r : t.gemm)
        own |= precision_index(r.precision) == p && r.pass == pass && library(r) == *chosen;
      Table g{RateTable(4, {2}), {}};
      for (std::size_t i = 0; i < t.gemm.size(); ++i) {
        const spec::GemmRow& r = t.gemm[i];
        if (precision_index(r.precision) != p || library(r) != *chosen ||
            r.pass != (own ? pass : spec::GemmPass::any))
          continue;
        Kernel k;
        k.cls = KernelClass::gemm;
        k.precision = r.precision;
        k.m = r.m, k.n = r.n, k.k = r.k, k.groups = r.groups;
        const double c = compute_bound(k, 1.0) ? clock(r.source) : 1.0;
        const double f = r.rate * c / (gemm_bound(k, 1.0) * waves(k, 1.0));
        g.rates.add({r.m, r.n, r.k, static_cast<double>(r.groups)}, f);
        g.rows.push_back(static_cast<int>(i));
        g.persistent = t.sources[static_cast<std::size_t>(r.source)].persistent;
      }
      g.rates.fit();
      gemm_.push_back(std::move(g));
    }
  }
  for (int p = 0; p < spec::kPrecisionCount; ++p) {
    // One library's rows, as for GEMMs.
    const std::string* chosen = spec::attention_library_for(t, static_cast<spec::Precision>(p));
    for (int pass = 0; pass < 2; ++pass)
      for (int causal = 0; causal < 2; ++causal) {
        Table a{RateTable(2, {0, 1}), {}};
        for (std::size_t i = 0; i < t.attention.size(); ++i) {
          const spec::AttentionRow& r = t.attention[i];
          if (precision_index(r.precision) != p || r.backward != (pass == 1) ||
              r.causal != (causal == 1) || !device.supports(r.precision) ||
              t.sources[static_cast<std::size_t>(r.source)].library != *chosen)
            continue;
          a.rates.add({r.seq, r.head_dim},
                      r.rate * clock(r.source) / device.rate(r.precision).peak_flops);
          a.rows.push_back(static_cast<int>(i));
        }
        a.rates.fit();
        attention_.push_back(std::move(a));
      }
  }
  for (std::size_t p = 0; p < spec::kMemoryPatterns.names.size(); ++p) {
    const auto pattern = static_cast<spec::MemoryPattern>(p);
    bool own = false;
    for (const spec::MemoryRow& r : t.memory) own |= r.pattern == pattern;
    Table m{RateTable(1, {0}), {}};
    for (std::size_t i = 0; i < t.memory.size(); ++i) {
      if (t.memory[i].pattern != (own ? pattern : spec::MemoryPattern::copy)) continue;
      m.rates.add({t.memory[i].bytes}, t.memory[i].bandwidth);
      m.rows.push_back(static_cast<int>(i));
    }
    m.rates.fit();
    memory_.push_back(std::move(m));
  }
}

double TableKernelModel::clock(int source) const {
  const auto& s = device_.tables.sources;
  const bool sustained = source >= 0 && source < static_cast<int>(s.size()) && s[source].sustained;
  return sustained ? 1.0 : device_.tables.sustained_clock;
}

int TableKernelModel::gemm_pass(const Kernel& k) {
  return static_cast<int>(gemm_pass_of(k)) - static_cast<int>(spec::GemmPass::fprop);
}

const TableKernelModel::Table* TableKernelModel::gemm_table(spec::Precision p, int pass) const {
  const Table* t = &gemm_[precision_index(p) * 3 + pass];
  if (t->rates.size() == 0 && p == spec::Precision::fp16)
    t = &gemm_[precision_index(spec::Precision::bf16) * 3 + pass];
  return t->rates.size() ? t : nullptr;
}

const TableKernelModel::Table* TableKernelModel::attention_table(spec::Precision p, bool backward,
                                                                 bool causal) const {
  auto at = [&](spec::Precision q) -> const Table* {
    const Table* t = &attention_[precision_index(q) * 4 + (backward ? 2 : 0) + (causal ? 1 : 0)];
    return t->rates.size() ? t : nullptr;
  };
  const Table* t = at(p);
  if (!t && p == spec::Precision::fp16) t = at(spec::Precision::bf16);
  return t;
}

namespace {

// A GEMM's operands and output (BF16 or wider), bytes, and its arithmetic intensity.
double gemm_intensity(const Kernel& k) {
  const double in = spec::bytes_per_element(k.precision);
  const double bytes = k.groups * (k.m * k.k * in + k.n * k.k * in + k.m * k.n * std::max(2.0, in));
  return 2.0 * k.groups * k.m * k.n * k.k / bytes;
}

}  // namespace

bool TableKernelModel::compute_bound(const Kernel& k, double sm_share) const {
  return gemm_intensity(k) * device_.hbm_bandwidth >=
         device_.rate(k.precision).peak_flops * sm_share;
}

double TableKernelModel::gemm_bound(const Kernel& k, double sm_share, bool memory) const {
  const double peak = device_.rate(k.precision).peak_flops * sm_share;
  return memory ? std::min(peak, gemm_intensity(k) * device_.hbm_bandwidth) : peak;
}

double TableKernelModel::waves(const Kernel& k, double sm_share) const {
  if (!compute_bound(k, sm_share)) return 1.0;  // memory-bound: the tiles wait on HBM, not SMs
  const double sms = std::max(1.0, std::floor(device_.sms * sm_share));
  const double tiles = k.groups * std::ceil(k.m / kTile) * std::ceil(k.n / kTile);
  return k.groups * k.m * k.n / (kTile * kTile) / (std::ceil(tiles / sms) * sms);
}

double TableKernelModel::fallback_rate(const Kernel& k, double sm_share, std::string* rule) const {
  const spec::Precision p = device_.supports(k.precision) ? k.precision : spec::Precision::bf16;
  double rate = device_.rate(p).achievable_flops * device_.tables.sustained_clock * sm_share;
  if (k.cls == KernelClass::gemm && k.m > 0.0) {
    rate = std::min(rate, gemm_intensity(k) * device_.hbm_bandwidth);
  }
  if (rule)
    *rule = "no " + std::string(to_string(k.cls)) + " table for " +
            std::string(to_string(k.precision)) + ": achievable " + std::string(to_string(p)) +
            " rate " + tflops(device_.rate(p).achievable_flops);
  return rate;
}

double TableKernelModel::gemm_rate(const Kernel& k, double sm_share, bool memory,
                                   std::string* rule) const {
  const Table* t = device_.supports(k.precision) ? gemm_table(k.precision, gemm_pass(k)) : nullptr;
  if (!t || k.m <= 0.0 || k.n <= 0.0 || k.k <= 0.0) return fallback_rate(k, sm_share, rule);
  const std::vector<double> shape{k.m, k.n, k.k, static_cast<double>(k.groups)};
  const double rate = t->rates.at(shape) * gemm_bound(k, sm_share, memory) * waves(k, sm_share);
  if (rule) {
    const spec::GemmRow& r = device_.tables.gemm[t->rows[t->rates.nearest(shape)]];
    const std::string row = device_.tables.sources[r.source].name + " " +
                            (r.groups > 1 ? format::general(r.groups) + "x" : "") +
                            format::general(r.m) + "x" + format::general(r.n) + "x" +
                            format::general(r.k) + " " + tflops(r.rate);
    *rule = t->rates.exact(shape) ? "row " + row
                                  : "interpolated over " + format::general(t->rates.size()) +
                                        " rows (nearest " + row + ")";
  }
  return rate;
}

double TableKernelModel::attention_rate(const Kernel& k, double sm_share, std::string* rule) const {
  if (!device_.supports(k.precision)) return fallback_rate(k, sm_share, rule);
  const std::vector<double> shape{k.seq, k.head_dim};
  const double peak = device_.rate(k.precision).peak_flops * sm_share;
  auto describe = [&](const Table& t, const char* what) {
    const spec::AttentionRow& r = device_.tables.attention[t.rows[t.rates.nearest(shape)]];
    const std::string row = device_.tables.sources[r.source].name + " " +
                            (r.backward ? "bwd" : "fwd") + (r.causal ? " causal" : "") + " d" +
                            format::general(r.head_dim) + " s" + format::general(r.seq) + " " +
                            tflops(r.rate);
    return std::string(what) + (t.rates.exact(shape)
                                    ? "row " + row
                                    : "interpolated over " + format::general(t.rates.size()) +
                                          " rows (nearest " + row + ")");
  };
  if (const Table* t = attention_table(k.precision, k.backward, k.causal)) {
    if (rule) *rule = describe(*t, "");
    return t->rates.at(shape) * peak;
  }
  const Table* open = attention_table(k.precision, k.backward, false);
  const Table* fc = attention_table(k.precision, false, true);
  const Table* fn = attention_table(k.precision, false, false);
  if (k.causal && open && fc && fn) {
    if (rule) *rule = describe(*open, "causal penalty of the forward x ");
    return open->rates.at(shape) * fc->rates.at(shape) / fn->rates.at(shape) * peak;
  }
  return fallback_rate(k, sm_share, rule);
}

double TableKernelModel::memory_rate(const Kernel& k, std::string* rule) const {
  const Table& m = memory_table(k.pattern);
  if (m.rates.size() == 0) {
    if (rule) *rule = "datasheet HBM bandwidth (no memory table)";
    return device_.hbm_bandwidth;
  }
  const std::vector<double> shape{std::max(k.hbm_bytes, 1.0)};
  if (rule) {
    const spec::MemoryRow& r = device_.tables.memory[m.rows[m.rates.nearest(shape)]];
    *rule = (m.rates.exact(shape) ? "row " : "interpolated (nearest ") +
            device_.tables.sources[r.source].name + " " + format::general(r.bytes / 1e6) +
            " MB at " + format::general(r.bandwidth / 1e9) + " GB/s" +
            (m.rates.exact(shape) ? "" : ")");
  }
  return m.rates.at(shape);
}

std::size_t TableKernelModel::ShapeHash::operator()(const ShapeKey& s) const {
  std::size_t h = std::hash<double>()(s.m);
  for (double v : {s.n, s.k, s.head_dim, s.seq, s.sm_share})
    h = h * 1099511628211ull ^ std::hash<double>()(v);
  return h * 1099511628211ull ^
         static_cast<std::size_t>(s.groups << 14 | s.pass << 10 | s.memory << 8 | s.cls << 6 |
                                  s.precision << 2 | s.backward << 1 | s.causal);
}

double TableKernelModel::cached_rate(const Kernel& k, double sm_share, bool memory) const {
  const ShapeKey key{k.m,
                     k.n,
                     k.k,
                     k.head_dim,
                     k.seq,
                     sm_share,
                     k.groups,
                     static_cast<std::uint8_t>(k.cls),
                     static_cast<std::uint8_t>(k.precision),
                     k.backward,
                     k.causal,
                     memory,
                     static_cast<std::uint8_t>(k.cls == KernelClass::gemm ? gemm_pass(k) : 0)};
  if (auto it = rates_.find(key); it != rates_.end()) return it->second;
  const double r = k.cls == KernelClass::gemm ? gemm_rate(k, sm_share, memory, nullptr)
                                              : attention_rate(k, sm_share, nullptr);
  rates_.emplace(key, r);
  return r;
}

double TableKernelModel::hbm_bandwidth() const {
  Kernel copy;
  copy.hbm_bytes = 1024.0 * 1024.0 * 1024.0;
  return memory_rate(copy, nullptr);
}

double TableKernelModel::exec(const Kernel& k, double sm_share, std::string* rule) const {
  switch (k.cls) {
    case KernelClass::gemm: {
      if (k.flops <= 0.0) return 0.0;
      const double math =
          k.flops / (rule ? gemm_rate(k, sm_share, true, rule) : cached_rate(k, sm_share, true));
      return k.hbm_bytes > 0.0 ? std::max(math, k.hbm_bytes / memory_rate(k, nullptr)) : math;
    }
    case KernelClass::attention:
      if (k.flops <= 0.0) return 0.0;
      return k.flops * (k.backward ? 1.25 : 1.0) /
             (rule ? attention_rate(k, sm_share, rule) : cached_rate(k, sm_share, true));
    case KernelClass::memory:
      return k.hbm_bytes > 0.0 ? k.hbm_bytes / memory_rate(k, rule) : 0.0;
  }
  STEPSIM_UNREACHABLE("unknown kernel class");
}

double TableKernelModel::seconds(const Kernel& k, double sm_share) const {
  return exec(k, sm_share, nullptr) + device_.kernel_gap_s;
}

KernelEstimate TableKernelModel::explain(const Kernel& k, double sm_share) const {
  KernelEstimate e;
  const double x = exec(k, sm_share, &e.rule);
  e.seconds = x + device_.kernel_gap_s;
  const spec::TableSource* table = source_of(k);
  e.source = table ? table->name : "device";
  e.library = table ? table->library : "generic";
  // Memory-bound kernels by their bandwidth; attention in FlashAttention's FLOP convention, as its
  // tables.
  const bool attention_bwd = k.cls == KernelClass::attention && k.backward;
  if (x > 0.0)
    e.rate =
        k.cls == KernelClass::memory ? k.hbm_bytes / x : k.flops * (attention_bwd ? 1.25 : 1.0) / x;
  return e;
}

const spec::TableSource* TableKernelModel::source_of(const Kernel& k) const {
  const bool known = device_.supports(k.precision);
  const Table* t = nullptr;
  std::vector<double> shape;
  const spec::TableSource* found = nullptr;
  auto nearest = [&](const auto& rows) {
    if (t) found = &device_.tables.sources[rows[t->rows[t->rates.nearest(shape)]].source];
  };
  switch (k.cls) {
    case KernelClass::gemm:
      shape = {k.m, k.n, k.k, static_cast<double>(k.groups)};
      if (known && k.m > 0.0 && k.n > 0.0 && k.k > 0.0) t = gemm_table(k.precision, gemm_pass(k));
      nearest(device_.tables.gemm);
      break;
    case KernelClass::attention:
      shape = {k.seq, k.head_dim};
      if (known) t = attention_table(k.precision, k.backward, k.causal);
      if (known && !t && k.causal) t = attention_table(k.precision, k.backward, false);
      nearest(device_.tables.attention);
      break;
    case KernelClass::memory:
      shape = {std::max(k.hbm_bytes, 1.0)};
      if (memory_table(k.pattern).rates.size()) t = &memory_table(k.pattern);
      nearest(device_.tables.memory);
      break;
  }
  return found;
}

spec::GemmPass gemm_pass_of(const Kernel& k) {
  switch (k.role) {
    case KernelRole::dgrad:
    case KernelRole::attn_dp:
    case KernelRole::attn_dv:
    case KernelRole::attn_dq:
    case KernelRole::attn_dk:
      return spec::GemmPass::dgrad;
    case KernelRole::wgrad:
      return spec::GemmPass::wgrad;
    default:
      return spec::GemmPass::fprop;
  }
}

std::string_view pass_of(const Kernel& k, bool phase_backward) {
  if (k.cls == KernelClass::gemm) return spec::kGemmPasses.word(gemm_pass_of(k));
  return phase_backward && !k.recompute ? "backward" : "forward";
}

double TableKernelModel::sm_seconds(const Kernel& k, double sm_share) const {
  if (k.cls == KernelClass::memory || k.flops <= 0.0) return 0.0;
  const double x = exec(k, sm_share, nullptr);
  if (k.cls == KernelClass::attention) return x;
  // A GEMM under its memory roofline, or held by its own bytes (an fp32 gradient), waits on HBM.
  const double bytes = k.hbm_bytes > 0.0 ? k.hbm_bytes / memory_rate(k, nullptr) : 0.0;
  return compute_bound(k, sm_share) && x > bytes ? x : 0.0;
}

bool TableKernelModel::persistent(const Kernel& k) const {
  if (k.cls != KernelClass::gemm || !device_.supports(k.precision)) return false;
  const Table* t = gemm_table(k.precision, gemm_pass(k));
  return t && !t->rows.empty() && t->persistent;
}

double TableKernelModel::math_seconds(const Kernel& k, double sm_share) const {
  if (k.cls == KernelClass::memory || k.flops <= 0.0) return 0.0;
  if (k.cls == KernelClass::attention) return exec(k, sm_share, nullptr);
  return k.flops / cached_rate(k, sm_share, false);
}

}  // namespace stepsim::hw
