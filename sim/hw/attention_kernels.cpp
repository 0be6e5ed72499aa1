// Fused attention cores (kernel_model.hpp states the rule): the fraction of the peak the chosen
// library's rows reach per precision, pass and causality, interpolated in (seq, head_dim).
#include <cmath>
#include <unordered_map>

#include "sim/format/text_table.hpp"
#include "sim/hw/kernel.hpp"

namespace stepsim::hw {

namespace {

// FlashAttention counts a backward as 2.5x the forward's FLOPs (five matmuls to two); the
// model's FLOPs count 2x.
double flash_flops(const Kernel& k) {
  return k.flops * (k.backward ? 1.25 : 1.0);
}

class AttentionTimer final : public KernelTimer {
 public:
  explicit AttentionTimer(const DeviceRates& rates);
  double exec(const Kernel& k, double sm_share, std::string* rule) const override;
  double math_seconds(const Kernel& k, double sm_share) const override {
    return exec(k, sm_share, nullptr);
  }
  double sm_seconds(const Kernel& k, double sm_share) const override {
    return exec(k, sm_share, nullptr);
  }
  const spec::TableSource* source_of(const Kernel& k) const override;
  double shown_rate(const Kernel& k, double seconds) const override {
    return flash_flops(k) / seconds;
  }

 private:
  const spec::DeviceSpec& device() const { return rates_.device(); }
  // The rows of a precision, pass and causality (FP16 takes the BF16 rows without its own).
  const RowTable* table(spec::Precision p, bool backward, bool causal) const;
  // A causal table, or else the non-causal one times the forward's causal penalty.
  double rate(const Kernel& k, double sm_share, std::string* rule) const;
  double cached_rate(const Kernel& k, double sm_share) const;
  struct Key {
    double head_dim, seq, sm_share;
    std::uint8_t precision, backward, causal;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& s) const {
      std::size_t h = std::hash<double>()(s.head_dim);
      for (double v : {s.seq, s.sm_share}) h = h * 1099511628211ull ^ std::hash<double>()(v);
      return h * 1099511628211ull ^
             static_cast<std::size_t>(s.precision << 2 | s.backward << 1 | s.causal);
    }
  };
  mutable std::unordered_map<Key, double, Hash> cache_;

  const DeviceRates& rates_;
  std::vector<RowTable> tables_;  // per precision × backward × causal
};

AttentionTimer::AttentionTimer(const DeviceRates& rates) : rates_(rates) {
  const spec::DeviceSpec& device = rates.device();
  const spec::KernelTables& t = device.tables;
  for (int p = 0; p < spec::kPrecisionCount; ++p) {
    // One library's rows, as for GEMMs.
    const auto precision = static_cast<spec::Precision>(p);
    const std::string* chosen = spec::attention_library_for(t, precision);
    for (int pass = 0; pass < 2; ++pass)
      for (int causal = 0; causal < 2; ++causal) {
        RowTable a{RateTable(2, {0, 1}), {}};
        for (std::size_t i = 0; i < t.attention.size(); ++i) {
          const spec::AttentionRow& r = t.attention[i];
          if (r.precision != precision || r.backward != (pass == 1) || r.causal != (causal == 1) ||
              !device.supports(r.precision) ||
              t.sources[static_cast<std::size_t>(r.source)].library != *chosen)
            continue;
          a.rates.add({r.seq, r.head_dim},
                      r.rate * rates.clock(r.source) / device.rate(r.precision).peak_flops);
          a.rows.push_back(static_cast<int>(i));
        }
        a.rates.fit();
        tables_.push_back(std::move(a));
      }
  }
}

const RowTable* AttentionTimer::table(spec::Precision p, bool backward, bool causal) const {
  auto at = [&](spec::Precision q) -> const RowTable* {
    const RowTable* t = &tables_[static_cast<int>(q) * 4 + (backward ? 2 : 0) + (causal ? 1 : 0)];
    return t->rates.size() ? t : nullptr;
  };
  const RowTable* t = at(p);
  if (!t && p == spec::Precision::fp16) t = at(spec::Precision::bf16);
  return t;
}

double AttentionTimer::rate(const Kernel& k, double sm_share, std::string* rule) const {
  if (!device().supports(k.precision)) return rates_.fallback_rate(k, sm_share, rule);
  const std::vector<double> shape{k.seq, k.head_dim};
  const double peak = device().rate(k.precision).peak_flops * sm_share;
  auto describe = [&](const RowTable& t, const char* what) {
    const spec::AttentionRow& r = device().tables.attention[t.rows[t.rates.nearest(shape)]];
    return what +
           row_rule(t, shape,
                    device().tables.sources[r.source].name + " " + (r.backward ? "bwd" : "fwd") +
                        (r.causal ? " causal" : "") + " d" + format::general(r.head_dim) + " s" +
                        format::general(r.seq) + " " + tflops(r.rate));
  };
  if (const RowTable* t = table(k.precision, k.backward, k.causal)) {
    if (rule) *rule = describe(*t, "");
    return t->rates.at(shape) * peak;
  }
  const RowTable* open = table(k.precision, k.backward, false);
  const RowTable* fc = table(k.precision, false, true);
  const RowTable* fn = table(k.precision, false, false);
  if (k.causal && open && fc && fn) {
    if (rule) *rule = describe(*open, "causal penalty of the forward x ");
    return open->rates.at(shape) * fc->rates.at(shape) / fn->rates.at(shape) * peak;
  }
  return rates_.fallback_rate(k, sm_share, rule);
}

double AttentionTimer::cached_rate(const Kernel& k, double sm_share) const {
  const Key key{k.head_dim, k.seq,   sm_share, static_cast<std::uint8_t>(k.precision),
                k.backward, k.causal};
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  return cache_.emplace(key, rate(k, sm_share, nullptr)).first->second;
}

double AttentionTimer::exec(const Kernel& k, double sm_share, std::string* rule) const {
  if (k.flops <= 0.0) return 0.0;
  return flash_flops(k) / (rule ? rate(k, sm_share, rule) : cached_rate(k, sm_share));
}

const spec::TableSource* AttentionTimer::source_of(const Kernel& k) const {
  if (!device().supports(k.precision)) return nullptr;
  const RowTable* t = table(k.precision, k.backward, k.causal);
  if (!t && k.causal) t = table(k.precision, k.backward, false);
  return t ? rates_.source_near(*t, {k.seq, k.head_dim}, device().tables.attention) : nullptr;
}

std::string attention_chart_name(const Kernel& k) {
  return (k.backward ? "attention bwd " : "attention fwd ") +
         std::string(spec::to_string(k.precision));
}

// A context-parallel block of q queries over k keys is timed as the square sqrt(q·k).
std::string attention_shape(const Kernel& k) {
  return "s" + format::general(std::round(k.seq)) + " d" + format::general(k.head_dim) +
         (k.causal ? " causal" : "");
}

std::unique_ptr<KernelTimer> attention_timer(const DeviceRates& rates) {
  return std::make_unique<AttentionTimer>(rates);
}

}  // namespace

const KernelClassDef kAttentionClass{"attention", attention_chart_name, attention_shape, true,
                                     false,       attention_timer};

}  // namespace stepsim::hw
