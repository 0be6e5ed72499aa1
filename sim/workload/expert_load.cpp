#include "sim/workload/expert_load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>

#include "sim/engine/splitmix.hpp"
#include "sim/hw/variability.hpp"

namespace stepsim::workload {

std::vector<double> expert_shares(const spec::MoeSpec& moe) {
  const int n = moe.experts;
  std::vector<double> p(static_cast<std::size_t>(std::max(n, 0)), n > 0 ? 1.0 / n : 0.0);
  switch (moe.routing.kind) {
    case spec::RoutingKind::balanced:
    case spec::RoutingKind::loss_free:
      break;
    case spec::RoutingKind::zipf: {
      std::vector<double> by_rank(p.size());
      for (std::size_t r = 0; r < by_rank.size(); ++r)
        by_rank[r] = std::pow(static_cast<double>(r + 1), -moe.routing.s);
      std::uint64_t state = moe.routing.seed;
      for (std::size_t i = by_rank.size(); i > 1; --i)
        std::swap(by_rank[i - 1], by_rank[engine::splitmix64_next(state) % i]);
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

double sampling_spread(const spec::MoeSpec& moe, int ep, double tokens_per_gpu) {
  const double n = moe.experts, k = std::min(moe.top_k, moe.experts), t = tokens_per_gpu * ep;
  if (ep < 2 || n < 2 || k < 1 || !(t > 0.0)) return 0.0;
  return std::sqrt((ep - 1.0) * (n - k) / ((n - 1.0) * t * k));
}

double expert_load_factor(const spec::MoeSpec& moe, int ep, double tokens_per_gpu) {
  if (!moe.enabled || moe.experts < 1 || ep < 1) return 1.0;
  if (moe.routing.kind == spec::RoutingKind::loss_free)
    return 1.0 + hw::expected_max_normal(ep) * sampling_spread(moe, ep, tokens_per_gpu);
  const std::vector<double> p = expert_shares(moe);
  std::vector<double> load(static_cast<std::size_t>(ep), 0.0);
  const int slots = moe.experts + moe.routing.redundant;
  if (moe.routing.redundant == 0) {
    for (int j = 0; j < moe.experts; ++j)
      load[static_cast<std::size_t>(static_cast<long long>(j) * ep / moe.experts)] += p[j];
  } else {
    // Replicate: each redundant slot to the expert whose replicas carry the most each (the first
    // such expert on a tie). A heap: O((E + R) log E), not a scan of every expert per replica.
    std::vector<int> copies(p.size(), 1);
    auto share = [&](std::size_t j) { return p[j] / copies[j]; };
    auto lighter = [&](std::size_t a, std::size_t b) {
      return share(a) < share(b) || (share(a) == share(b) && a > b);
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(lighter)> hottest(lighter);
    for (std::size_t j = 0; j < p.size(); ++j) hottest.push(j);
    for (int r = 0; r < moe.routing.redundant; ++r) {
      const std::size_t hot = hottest.top();
      hottest.pop();
      ++copies[hot];
      hottest.push(hot);
    }
    // Pack: the replicas, heaviest first, each onto the lightest GPU with a free slot (the first
    // such GPU on a tie), again from a heap.
    std::vector<double> replicas;
    for (std::size_t j = 0; j < p.size(); ++j)
      for (int c = 0; c < copies[j]; ++c) replicas.push_back(p[j] / copies[j]);
    std::stable_sort(replicas.begin(), replicas.end(), std::greater<double>());
    std::vector<int> used(load.size(), 0);
    const int per_gpu = (slots + ep - 1) / ep;  // make_plan requires ep to divide the slots
    auto heavier = [&](std::size_t a, std::size_t b) {
      return load[a] > load[b] || (load[a] == load[b] && a > b);
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(heavier)> lightest(heavier);
    for (std::size_t g = 0; g < load.size(); ++g) lightest.push(g);
    for (double w : replicas) {
      const std::size_t best = lightest.top();
      lightest.pop();
      load[best] += w;
      if (++used[best] < per_gpu) lightest.push(best);
    }
  }
  return std::max(1.0, ep * *std::max_element(load.begin(), load.end()));
}

}  // namespace stepsim::workload
