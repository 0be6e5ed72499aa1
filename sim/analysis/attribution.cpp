#include "sim/analysis/attribution.hpp"

#include <bit>
#include <map>

#include "sim/engine/check.hpp"

namespace stepsim::analysis {

Attribution attribute(int m, AttributionScheme scheme,
                      const std::function<double(std::uint32_t)>& value) {
  STEPSIM_CHECK(m >= 0 && m < 31, "attribution over 0 to 30 mechanisms");
  std::map<std::uint32_t, double> seen;
  const auto v = [&](std::uint32_t s) {
    auto it = seen.find(s);
    if (it == seen.end()) it = seen.emplace(s, value(s)).first;
    return it->second;
  };
  const std::uint32_t all = (std::uint32_t{1} << m) - 1;
  Attribution a;
  a.scheme = scheme;
  a.all_on = v(all);
  a.all_off = v(0);
  a.share.assign(static_cast<std::size_t>(m), 0.0);
  if (scheme == AttributionScheme::exact) {
    // weight[k] = k!·(m−k−1)!/m!, for a coalition of k others.
    std::vector<double> weight(static_cast<std::size_t>(m), 0.0);
    for (int k = 0; k < m; ++k) {
      double w = 1.0 / m;  // 1/m · 1/C(m−1, k)
      for (int j = 1; j <= k; ++j) w *= static_cast<double>(j) / (m - j);
      weight[static_cast<std::size_t>(k)] = w;
    }
    for (std::uint32_t s = 0; s <= all; ++s)
      for (int i = 0; i < m; ++i)
        if (!(s >> i & 1u))
          a.share[static_cast<std::size_t>(i)] +=
              weight[static_cast<std::size_t>(std::popcount(s))] * (v(s | 1u << i) - v(s));
  } else {
    for (int i = 0; i < m; ++i)
      a.share[static_cast<std::size_t>(i)] =
          0.5 * (a.all_on - v(all & ~(1u << i))) + 0.5 * (v(1u << i) - a.all_off);
  }
  double sum = 0.0;
  for (double x : a.share) sum += x;
  a.residual = a.all_on - a.all_off - sum;
  a.evaluations = static_cast<int>(seen.size());
  return a;
}

}  // namespace stepsim::analysis
