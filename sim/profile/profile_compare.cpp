#include "sim/profile/profile_compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace stepsim::profile {

namespace {

// The classes of `s` at the level `other` can say: a group whose rows in `other` are all
// without detail (a profile's GEMMs, whose names do not give the pass) is one row here too.
std::vector<ClassTime> at_level_of(const std::vector<ClassTime>& s,
                                   const std::vector<ClassTime>& other) {
  std::map<std::string, bool> plain;  // group -> every row of it in `other` has no detail
  for (const ClassTime& t : other) {
    const auto [it, fresh] = plain.emplace(t.cls.group, t.cls.detail.empty());
    if (!fresh) it->second = it->second && t.cls.detail.empty();
  }
  std::vector<ClassTime> out;
  std::map<std::string, std::size_t> merged;
  for (const ClassTime& t : s) {
    const auto p = plain.find(t.cls.group);
    if (p == plain.end() || !p->second || t.cls.detail.empty()) {
      out.push_back(t);
      continue;
    }
    const auto [it, fresh] = merged.emplace(t.cls.group, out.size());
    if (fresh) out.push_back({{t.cls.group, ""}, 0.0, 0});
    out[it->second].seconds += t.seconds;
    out[it->second].count += t.count;
  }
  // Merged groups may have joined a plain row of their own.
  std::map<std::string, std::size_t> at;
  std::vector<ClassTime> unique;
  for (const ClassTime& t : out) {
    const auto [it, fresh] = at.emplace(t.cls.label(), unique.size());
    if (fresh) {
      unique.push_back(t);
    } else {
      unique[it->second].seconds += t.seconds;
      unique[it->second].count += t.count;
    }
  }
  std::stable_sort(unique.begin(), unique.end(),
                   [](const ClassTime& a, const ClassTime& b) { return a.seconds > b.seconds; });
  return unique;
}

}  // namespace

Comparison compare(const RankSummary& measured, const RankSummary& simulated, int top) {
  Comparison c;
  c.measured = measured;
  c.simulated = simulated;
  c.measured.classes = at_level_of(measured.classes, simulated.classes);
  c.simulated.classes = at_level_of(simulated.classes, measured.classes);
  std::map<std::string, std::size_t> at;
  auto row = [&](const std::string& label) -> CompareRow& {
    const auto [it, fresh] = at.emplace(label, c.classes.size());
    if (fresh) c.classes.push_back({label});
    return c.classes[it->second];
  };
  for (const ClassTime& t : c.measured.classes) {
    CompareRow& r = row(t.cls.label());
    r.measured_s = t.seconds;
    r.measured_count = t.count;
  }
  for (const ClassTime& t : c.simulated.classes) {
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
