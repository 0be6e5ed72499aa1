#include "sim/hw/kernel.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/engine/check.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::hw {

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

std::string tflops(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f TFLOP/s", r / 1e12);
  return b;
}

std::string row_rule(const RowTable& t, const std::vector<double>& shape, const std::string& row) {
  return t.rates.exact(shape) ? "row " + row
                              : "interpolated over " + format::general(t.rates.size()) +
                                    " rows (nearest " + row + ")";
}

DeviceRates::DeviceRates(const spec::DeviceSpec& device) : device_(device) {
  const auto& rows = device.tables.memory;
  for (std::size_t p = 0; p < spec::kMemoryPatterns.names.size(); ++p) {
    const auto pattern = static_cast<spec::MemoryPattern>(p);
    const bool own = std::any_of(rows.begin(), rows.end(),
                                 [&](const spec::MemoryRow& r) { return r.pattern == pattern; });
    RowTable m{RateTable(1, {0}), {}};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].pattern != (own ? pattern : spec::MemoryPattern::copy)) continue;
      m.rates.add({rows[i].bytes}, rows[i].bandwidth);
      m.rows.push_back(static_cast<int>(i));
    }
    m.rates.fit();
    memory_.push_back(std::move(m));
  }
}

double DeviceRates::clock(int source) const {
  const auto& s = device_.tables.sources;
  const bool sustained = source >= 0 && source < static_cast<int>(s.size()) && s[source].sustained;
  return sustained ? 1.0 : device_.tables.sustained_clock;
}

double DeviceRates::memory_rate(const Kernel& k, std::string* rule) const {
  const RowTable& m = memory_[static_cast<std::size_t>(k.pattern)];
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

const spec::TableSource* DeviceRates::memory_source(const Kernel& k) const {
  const RowTable& m = memory_[static_cast<std::size_t>(k.pattern)];
  if (m.rates.size() == 0) return nullptr;
  return source_near(m, {std::max(k.hbm_bytes, 1.0)}, device_.tables.memory);
}

double DeviceRates::fallback_rate(const Kernel& k, double sm_share, std::string* rule) const {
  const spec::Precision p = device_.supports(k.precision) ? k.precision : spec::Precision::bf16;
  if (rule)
    *rule = "no " + std::string(k.cls->word) + " table for " +
            std::string(spec::to_string(k.precision)) + ": achievable " +
            std::string(spec::to_string(p)) + " rate " + tflops(device_.rate(p).achievable_flops);
  return device_.rate(p).achievable_flops * device_.tables.sustained_clock * sm_share;
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
  if (k.cls->pass_by_role) return spec::kGemmPasses.word(gemm_pass_of(k));
  return phase_backward && !k.recompute ? "backward" : "forward";
}

}  // namespace stepsim::hw
