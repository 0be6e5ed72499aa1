// GEMMs and grouped GEMMs (kernel_model.hpp states the rule): the rows of the chosen library per
// precision and pass, normalised by the bound the shape allows (its roofline and its waves), and
// that fraction interpolated.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/format/text_table.hpp"
#include "sim/hw/kernel.hpp"

namespace stepsim::hw {

namespace {

constexpr double kTile = 128.0;  // output tile edge of the GEMM kernels (both dimensions)
constexpr int kPasses = 3;       // fprop, dgrad, wgrad

int pass_index(const Kernel& k) {
  return static_cast<int>(gemm_pass_of(k)) - static_cast<int>(spec::GemmPass::fprop);
}

// A GEMM's operands and output (BF16 or wider), bytes, and its arithmetic intensity.
double intensity(const Kernel& k) {
  const double in = spec::bytes_per_element(k.precision);
  const double bytes = k.groups * (k.m * k.k * in + k.n * k.k * in + k.m * k.n * std::max(2.0, in));
  return 2.0 * k.groups * k.m * k.n * k.k / bytes;
}

std::vector<double> shape_of(const Kernel& k) {
  return {k.m, k.n, k.k, static_cast<double>(k.groups)};
}

class GemmTimer final : public KernelTimer {
 public:
  explicit GemmTimer(const DeviceRates& rates);
  double exec(const Kernel& k, double sm_share, std::string* rule) const override;
  double math_seconds(const Kernel& k, double sm_share) const override;
  double sm_seconds(const Kernel& k, double sm_share) const override;
  bool persistent(const Kernel& k) const override;
  const spec::TableSource* source_of(const Kernel& k) const override;
  double shown_rate(const Kernel& k, double seconds) const override { return k.flops / seconds; }

 private:
  const spec::DeviceSpec& device() const { return rates_.device(); }
  // The table of its precision and pass: the pass's own rows, or the rows of any pass; FP16 takes
  // the BF16 rows without its own. With `shaped`, none for a kernel without a shape.
  const RowTable* table(const Kernel& k, bool shaped = true) const;
  bool compute_bound(const Kernel& k, double sm_share) const;
  // peak · share, and with `memory` under the shape's memory roofline.
  double bound(const Kernel& k, double sm_share, bool memory) const;
  double waves(const Kernel& k, double sm_share) const;
  double rate(const Kernel& k, double sm_share, bool memory, std::string* rule) const;
  // Rates already found, by shape and SM share: a step program repeats its shapes in every
  // layer and chain. (Not thread-safe: one model per thread.)
  double cached_rate(const Kernel& k, double sm_share, bool memory) const;
  struct Key {
    double m, n, k, sm_share;
    int groups;
    std::uint8_t precision, pass, memory;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& s) const {
      std::size_t h = std::hash<double>()(s.m);
      for (double v : {s.n, s.k, s.sm_share}) h = h * 1099511628211ull ^ std::hash<double>()(v);
      return h * 1099511628211ull ^
             static_cast<std::size_t>(s.groups << 12 | s.pass << 8 | s.memory << 6 | s.precision);
    }
  };
  mutable std::unordered_map<Key, double, Hash> cache_;

  const DeviceRates& rates_;
  std::vector<RowTable> tables_;  // per precision × pass
};

GemmTimer::GemmTimer(const DeviceRates& rates) : rates_(rates) {
  const spec::KernelTables& t = device().tables;
  auto library = [&](const spec::GemmRow& r) -> const std::string& {
    return t.sources[static_cast<std::size_t>(r.source)].library;
  };
  for (int p = 0; p < spec::kPrecisionCount; ++p) {
    // One library's rows: the chosen one where it has rows of this precision, else the first.
    const auto precision = static_cast<spec::Precision>(p);
    const std::string* chosen = spec::gemm_library_for(t, precision);
    for (const spec::GemmPass pass :
         {spec::GemmPass::fprop, spec::GemmPass::dgrad, spec::GemmPass::wgrad}) {
      const bool own = std::any_of(t.gemm.begin(), t.gemm.end(), [&](const spec::GemmRow& r) {
        return r.precision == precision && r.pass == pass && library(r) == *chosen;
      });
      RowTable g{RateTable(4, {2}), {}};
      for (std::size_t i = 0; i < t.gemm.size(); ++i) {
        const spec::GemmRow& r = t.gemm[i];
        if (r.precision != precision || library(r) != *chosen ||
            r.pass != (own ? pass : spec::GemmPass::any))
          continue;
        Kernel k;
        k.cls = &kGemmClass;
        k.precision = r.precision;
        k.m = r.m, k.n = r.n, k.k = r.k, k.groups = r.groups;
        const double c = compute_bound(k, 1.0) ? rates_.clock(r.source) : 1.0;
        g.rates.add(shape_of(k), r.rate * c / (bound(k, 1.0, true) * waves(k, 1.0)));
        g.rows.push_back(static_cast<int>(i));
        g.persistent = t.sources[static_cast<std::size_t>(r.source)].persistent;
      }
      g.rates.fit();
      tables_.push_back(std::move(g));
    }
  }
}

const RowTable* GemmTimer::table(const Kernel& k, bool shaped) const {
  if (!device().supports(k.precision)) return nullptr;
  if (shaped && (k.m <= 0.0 || k.n <= 0.0 || k.k <= 0.0)) return nullptr;
  auto at = [&](spec::Precision p) {
    return &tables_[static_cast<int>(p) * kPasses + pass_index(k)];
  };
  const RowTable* t = at(k.precision);
  if (t->rates.size() == 0 && k.precision == spec::Precision::fp16) t = at(spec::Precision::bf16);
  return t->rates.size() ? t : nullptr;
}

bool GemmTimer::compute_bound(const Kernel& k, double sm_share) const {
  return intensity(k) * device().hbm_bandwidth >= device().rate(k.precision).peak_flops * sm_share;
}

double GemmTimer::bound(const Kernel& k, double sm_share, bool memory) const {
  const double peak = device().rate(k.precision).peak_flops * sm_share;
  return memory ? std::min(peak, intensity(k) * device().hbm_bandwidth) : peak;
}

double GemmTimer::waves(const Kernel& k, double sm_share) const {
  if (!compute_bound(k, sm_share)) return 1.0;  // memory-bound: the tiles wait on HBM, not SMs
  const double sms = std::max(1.0, std::floor(device().sms * sm_share));
  const double tiles = k.groups * std::ceil(k.m / kTile) * std::ceil(k.n / kTile);
  return k.groups * k.m * k.n / (kTile * kTile) / (std::ceil(tiles / sms) * sms);
}

double GemmTimer::rate(const Kernel& k, double sm_share, bool memory, std::string* rule) const {
  const RowTable* t = table(k);
  if (!t) {
    const double fallback = rates_.fallback_rate(k, sm_share, rule);
    return k.m > 0.0 ? std::min(fallback, intensity(k) * device().hbm_bandwidth) : fallback;
  }
  const std::vector<double> shape = shape_of(k);
  if (rule) {
    const spec::GemmRow& r = device().tables.gemm[t->rows[t->rates.nearest(shape)]];
    *rule = row_rule(*t, shape,
                     device().tables.sources[r.source].name + " " +
                         (r.groups > 1 ? format::general(r.groups) + "x" : "") +
                         format::general(r.m) + "x" + format::general(r.n) + "x" +
                         format::general(r.k) + " " + tflops(r.rate));
  }
  return t->rates.at(shape) * bound(k, sm_share, memory) * waves(k, sm_share);
}

double GemmTimer::cached_rate(const Kernel& k, double sm_share, bool memory) const {
  const Key key{k.m,
                k.n,
                k.k,
                sm_share,
                k.groups,
                static_cast<std::uint8_t>(k.precision),
                static_cast<std::uint8_t>(pass_index(k)),
                memory};
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  return cache_.emplace(key, rate(k, sm_share, memory, nullptr)).first->second;
}

double GemmTimer::exec(const Kernel& k, double sm_share, std::string* rule) const {
  if (k.flops <= 0.0) return 0.0;
  const double math =
      k.flops / (rule ? rate(k, sm_share, true, rule) : cached_rate(k, sm_share, true));
  return k.hbm_bytes > 0.0 ? std::max(math, k.hbm_bytes / rates_.memory_rate(k, nullptr)) : math;
}

double GemmTimer::math_seconds(const Kernel& k, double sm_share) const {
  return k.flops > 0.0 ? k.flops / cached_rate(k, sm_share, false) : 0.0;
}

double GemmTimer::sm_seconds(const Kernel& k, double sm_share) const {
  if (k.flops <= 0.0) return 0.0;
  const double x = exec(k, sm_share, nullptr);
  // Under its memory roofline, or held by its own bytes (an fp32 gradient), it waits on HBM.
  const double bytes = k.hbm_bytes > 0.0 ? k.hbm_bytes / rates_.memory_rate(k, nullptr) : 0.0;
  return compute_bound(k, sm_share) && x > bytes ? x : 0.0;
}

bool GemmTimer::persistent(const Kernel& k) const {
  const RowTable* t = table(k, false);
  return t && !t->rows.empty() && t->persistent;
}

const spec::TableSource* GemmTimer::source_of(const Kernel& k) const {
  const RowTable* t = table(k);
  return t ? rates_.source_near(*t, shape_of(k), device().tables.gemm) : nullptr;
}

std::string gemm_chart_name(const Kernel& k) {
  return (k.groups > 1 ? "grouped GEMM " : "GEMM ") + std::string(spec::to_string(k.precision));
}

std::string gemm_shape(const Kernel& k) {
  return (k.groups > 1 ? format::general(k.groups) + "x" : "") + format::general(k.m) + "x" +
         format::general(k.n) + "x" + format::general(k.k);
}

std::unique_ptr<KernelTimer> gemm_timer(const DeviceRates& rates) {
  return std::make_unique<GemmTimer>(rates);
}

}  // namespace

const KernelClassDef kGemmClass{"gemm", gemm_chart_name, gemm_shape, true, true, gemm_timer};

Kernel gemm_kernel(const spec::GemmRow& r) {
  Kernel k;
  k.cls = &kGemmClass;
  k.precision = r.precision;
  k.m = r.m, k.n = r.n, k.k = r.k, k.groups = r.groups;
  k.flops = 2.0 * r.groups * r.m * r.n * r.k;
  k.role = r.pass == spec::GemmPass::wgrad   ? KernelRole::wgrad
           : r.pass == spec::GemmPass::dgrad ? KernelRole::dgrad
                                             : KernelRole::fprop;
  return k;
}

}  // namespace stepsim::hw
