#include "sim/workload/expert_load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace stepsim::workload {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<double> expert_shares(const spec::MoeSpec& moe) {
  const int n = moe.experts;
  std::vector<double> p(static_cast<std::size_t>(std::max(n, 0)), n > 0 ? 1.0 / n : 0.0);
  switch (moe.routing.kind) {
    case spec::RoutingKind::balanced:
      break;
    case spec::RoutingKind::zipf: {
      std::vector<double> by_rank(p.size());
      for (std::size_t r = 0; r < by_rank.size(); ++r)
        by_rank[r] = std::pow(static_cast<double>(r + 1), -moe.routing.s);
      std::uint64_t state = moe.routing.seed;
      for (std::size_t i = by_rank.size(); i > 1; --i)
        std::swap(by_rank[i - 1], by_rank[splitmix64(state) % i]);
      p = by_rank;
      break;
    }
    case spec::RoutingKind::histogram:
      p = moe.routing.shares;
      break;
  }
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  if (total > 0.0)
    for (double& x : p) x /= total;
  return p;
}

double expert_load_factor(const spec::MoeSpec& moe, int ep) {
  if (!moe.enabled || moe.experts < 1 || ep < 1) return 1.0;
  const std::vector<double> p = expert_shares(moe);
  std::vector<double> load(static_cast<std::size_t>(ep), 0.0);
  for (int j = 0; j < moe.experts; ++j)
    load[static_cast<std::size_t>(static_cast<long long>(j) * ep / moe.experts)] += p[j];
  return std::max(1.0, ep * *std::max_element(load.begin(), load.end()));
}

}  // namespace stepsim::workload
