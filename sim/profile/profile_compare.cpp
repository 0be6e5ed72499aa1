#include "sim/profile/profile_compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace stepsim::profile {

Comparison compare(const RankSummary& measured, const RankSummary& simulated, int top) {
  Comparison c;
  c.measured = measured;
  c.simulated = simulated;
  std::map<std::string, std::size_t> at;
  auto row = [&](const std::string& label) -> CompareRow& {
    const auto [it, fresh] = at.emplace(label, c.classes.size());
    if (fresh) c.classes.push_back({label});
    return c.classes[it->second];
  };
  for (const ClassTime& t : measured.classes) {
    CompareRow& r = row(t.cls.label());
    r.measured_s = t.seconds;
    r.measured_count = t.count;
  }
  for (const ClassTime& t : simulated.classes) {
    CompareRow& r = row(t.cls.label());
    r.simulated_s = t.seconds;
    r.simulated_count = t.count;
  }
  std::map<int, CompareRow> layers;
  for (const auto& [layer, s] : measured.layer_s) layers[layer].measured_s = s;
  for (const auto& [layer, s] : simulated.layer_s) layers[layer].simulated_s = s;
  for (auto& [layer, r] : layers) {
    r.label = "L" + std::to_string(layer);
    c.layers.push_back(r);
  }
  std::map<std::string, CompareRow> kernels;
  for (const auto& [name, t] : measured.kernel_s) {
    kernels[name].measured_s = t.first;
    kernels[name].measured_count = t.second;
  }
  for (const auto& [name, t] : simulated.kernel_s) {
    kernels[name].simulated_s = t.first;
    kernels[name].simulated_count = t.second;
  }
  for (auto& [name, r] : kernels) {
    r.label = name;
    if (std::abs(r.measured_s - r.simulated_s) > 1e-9 * std::max(r.measured_s, r.simulated_s))
      c.kernels.push_back(r);
  }
  std::stable_sort(
      c.kernels.begin(), c.kernels.end(), [](const CompareRow& a, const CompareRow& b) {
        return std::abs(a.measured_s - a.simulated_s) > std::abs(b.measured_s - b.simulated_s);
      });
  if (c.kernels.size() > static_cast<std::size_t>(std::max(top, 0)))
    c.kernels.resize(static_cast<std::size_t>(std::max(top, 0)));
  return c;
}

}  // namespace stepsim::profile
