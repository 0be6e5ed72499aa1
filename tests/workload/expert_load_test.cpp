// Expert load (workload/expert_load.hpp): the busiest GPU of an expert-parallel group over the
// mean, from the routing's shares; the experts' kernels and the exchange take it.
#include "sim/workload/expert_load.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/hw/variability.hpp"
#include "sim/workload/op_kernels.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

spec::MoeSpec moe(int experts, spec::RoutingSpec routing) {
  spec::MoeSpec m;
  m.enabled = true;
  m.experts = experts;
  m.top_k = 2;
  m.intermediate = 512;
  m.routing = std::move(routing);
  return m;
}

}  // namespace

TEST_CASE("Balanced routing: every GPU its mean share") {
  CHECK(workload::expert_load_factor(moe(256, {}), 64, 4096.0) == 1.0);
  spec::MoeSpec off;
  CHECK(workload::expert_load_factor(off, 8, 4096.0) == 1.0);
}

TEST_CASE("Histogram routing: the busiest GPU's block of experts") {
  spec::RoutingSpec r;
  r.kind = spec::RoutingKind::histogram;
  r.shares = {4, 0, 1, 1, 1, 1, 0, 0};  // 8 experts, 4 GPUs of 2: loads 4, 2, 2, 0 of 8
  CHECK(workload::expert_load_factor(moe(8, r), 4, 4096.0) == doctest::Approx(4 * 4.0 / 8.0));
  CHECK(workload::expert_load_factor(moe(8, r), 2, 4096.0) == doctest::Approx(2 * 6.0 / 8.0));
}

TEST_CASE("Zipf routing: the shares are 1/r^s dealt by the seed; the busiest GPU as they imply") {
  spec::RoutingSpec r;
  r.kind = spec::RoutingKind::zipf;
  r.s = 1.0;
  r.seed = 7;
  const spec::MoeSpec m = moe(8, r);
  // One expert per GPU: the busiest holds rank 1, 1 / H_8 of the copies, whatever the shuffle.
  double h8 = 0.0;
  for (int i = 1; i <= 8; ++i) h8 += 1.0 / i;
  CHECK(workload::expert_load_factor(m, 8, 4096.0) == doctest::Approx(8.0 / h8));  // 2.94
  // The shares are the ranks' in some order, the same for the same seed.
  std::vector<double> p = workload::expert_shares(m);
  CHECK(p == workload::expert_shares(m));
  std::vector<double> sorted = p;
  std::sort(sorted.rbegin(), sorted.rend());
  for (int i = 0; i < 8; ++i) CHECK(sorted[i] == doctest::Approx(1.0 / (i + 1) / h8));
  // Two GPUs of four experts: the larger block sum.
  const double a = p[0] + p[1] + p[2] + p[3], b = p[4] + p[5] + p[6] + p[7];
  CHECK(workload::expert_load_factor(m, 2, 4096.0) == doctest::Approx(2 * std::max(a, b)));
  // Another seed deals the ranks differently.
  spec::MoeSpec other = m;
  other.routing.seed = 8;
  CHECK(workload::expert_shares(other) != p);
}

TEST_CASE("Redundant experts (EPLB): the hottest replicated, the replicas packed by load") {
  spec::RoutingSpec r;
  r.kind = spec::RoutingKind::histogram;
  // 4 experts on 2 GPUs: contiguous blocks carry 6 and 2 of 8 (f = 1.5).
  r.shares = {5, 1, 1, 1};
  CHECK(workload::expert_load_factor(moe(4, r), 2, 4096.0) == doctest::Approx(2 * 6.0 / 8.0));
  // Two redundant slots: both go to expert 0 (5/2 = 2.5 > 1, then 5/3 = 1.67 > 1), three replicas
  // of 5/3 and three experts of 1, packed three a GPU: {5/3, 5/3, 1} and {5/3, 1, 1}: the
  // busiest carries 13/3 of 8.
  r.redundant = 2;
  CHECK(workload::expert_load_factor(moe(4, r), 2, 4096.0) ==
        doctest::Approx(2 * (13.0 / 3.0) / 8.0));
  // Balanced stays balanced.
  spec::RoutingSpec even;
  even.redundant = 4;
  CHECK(workload::expert_load_factor(moe(8, even), 4, 4096.0) == doctest::Approx(1.0));
}

TEST_CASE("The busiest GPU's copies set the experts' GEMM rows and memory-bound kernels") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.model.moe = moe(8, {});
  const auto balanced = workload::kernel_context(s.model, s.training, 4096, 1, 8, false);
  s.model.moe.routing.kind = spec::RoutingKind::zipf;
  const auto skewed = workload::kernel_context(s.model, s.training, 4096, 1, 8, false);
  REQUIRE(skewed.expert_load > 2.9);
  workload::OpCost up;
  up.name = "experts_up";
  up.group = "experts_up";
  up.cls = workload::OpClass::gemm;
  up.routed_expert = true;
  up.routed_copies = true;
  up.copies = 2;
  up.n = 1024, up.k = 1024;
  up.fwd_flops = 2.0 * 1024 * 1024 * 2;
  const auto kb = workload::op_kernels(up, workload::Phase::forward, balanced);
  const auto ks = workload::op_kernels(up, workload::Phase::forward, skewed);
  REQUIRE(!kb.empty());
  CHECK(ks.back().m == doctest::Approx(kb.back().m * skewed.expert_load));
  // The permutation before the exchange reorders the GPU's own copies: balanced either way.
  workload::OpCost perm;
  perm.name = perm.group = "permute";
  perm.cls = workload::OpClass::elementwise;
  perm.routed_expert = true;
  perm.io_bytes = 1000.0;
  CHECK(workload::op_kernels(perm, workload::Phase::forward, skewed).front().hbm_bytes ==
        workload::op_kernels(perm, workload::Phase::forward, balanced).front().hbm_bytes);
}

TEST_CASE("Loss-free balancing: the busiest GPU over the mean from one step's draw of routes") {
  spec::RoutingSpec r;
  r.kind = spec::RoutingKind::loss_free;
  // DeepSeek-V3: 256 experts, top-8, EP64, 4096 tokens per GPU and micro-batch.
  spec::MoeSpec m = moe(256, r);
  m.top_k = 8;
  const double sigma = std::sqrt(63.0 * 248.0 / (255.0 * 64 * 4096 * 8));
  CHECK(workload::sampling_spread(m, 64, 4096.0) == doctest::Approx(sigma));
  const double f = workload::expert_load_factor(m, 64, 4096.0);
  CHECK(f == doctest::Approx(1.0 + hw::expected_max_normal(64) * sigma));
  CHECK(f == doctest::Approx(1.013).epsilon(0.001));
  CHECK(workload::expert_load_factor(m, 64, 16384.0) - 1.0 == doctest::Approx((f - 1.0) / 2.0));
  // Against routes drawn: 64 experts on 8 GPUs, top-4, 2048 tokens a step; the mean over
  // steps of the busiest GPU's copies over the mean.
  spec::MoeSpec small = moe(64, r);
  small.top_k = 4;
  test::Rng rng(7);
  double busiest = 0.0;
  const int steps = 400;
  for (int s = 0; s < steps; ++s) {
    std::vector<int> load(8, 0);
    for (int t = 0; t < 2048; ++t) {
      std::vector<int> picked;
      while (static_cast<int>(picked.size()) < 4) {
        const int e = rng.below(64);
        if (std::find(picked.begin(), picked.end(), e) == picked.end()) picked.push_back(e);
      }
      for (int e : picked) ++load[e / 8];
    }
    busiest += *std::max_element(load.begin(), load.end()) / (2048.0 * 4 / 8);
  }
  const double model = workload::expert_load_factor(small, 8, 256.0);
  MESSAGE("drawn " << busiest / steps << ", model " << model);
  CHECK(model - 1.0 == doctest::Approx(busiest / steps - 1.0).epsilon(0.15));
}
