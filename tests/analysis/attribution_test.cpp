// Shapley attribution (analysis/attribution.hpp) on games whose values are known in closed form.
#include "sim/analysis/attribution.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>

using namespace stepsim;
using analysis::AttributionScheme;

namespace {
bool in(std::uint32_t s, int i) {
  return (s >> i & 1u) != 0;
}
}  // namespace

TEST_CASE("An additive game: each mechanism gets its own effect, by either scheme") {
  const double a[] = {3.0, 0.5, 0.0, 7.25};
  const auto v = [&](std::uint32_t s) {
    double x = 10.0;
    for (int i = 0; i < 4; ++i) x += in(s, i) ? a[i] : 0.0;
    return x;
  };
  for (AttributionScheme scheme : {AttributionScheme::exact, AttributionScheme::pairwise}) {
    const analysis::Attribution r = analysis::attribute(4, scheme, v);
    for (int i = 0; i < 4; ++i)
      CHECK(r.share[static_cast<std::size_t>(i)] == doctest::Approx(a[i]));
    CHECK(r.residual == doctest::Approx(0.0));
    CHECK(r.all_on == doctest::Approx(20.75));
    CHECK(r.all_off == doctest::Approx(10.0));
  }
  CHECK(analysis::attribute(4, AttributionScheme::exact, v).evaluations == 16);
  CHECK(analysis::attribute(4, AttributionScheme::pairwise, v).evaluations == 10);
}

TEST_CASE("Two mechanisms that act only together split their joint effect; a dummy gets 0") {
  // v = 2·[0] + 6·[0 and 1]: mechanism 1 alone changes nothing, 2 never does.
  const auto v = [](std::uint32_t s) { return 2.0 * in(s, 0) + 6.0 * (in(s, 0) && in(s, 1)); };
  for (AttributionScheme scheme : {AttributionScheme::exact, AttributionScheme::pairwise}) {
    const analysis::Attribution r = analysis::attribute(3, scheme, v);
    CHECK(r.share[0] == doctest::Approx(5.0));
    CHECK(r.share[1] == doctest::Approx(3.0));
    CHECK(r.share[2] == doctest::Approx(0.0));
    CHECK(r.residual == doctest::Approx(0.0));
  }
}

TEST_CASE("A three-way interaction: exact thirds; the pairwise scheme's error is its residual") {
  // v = c·[0 and 1 and 2] + 1·[3]: a_T = c for T = {0,1,2}.
  const double c = 9.0;
  const auto v = [&](std::uint32_t s) {
    return c * (in(s, 0) && in(s, 1) && in(s, 2)) + 1.0 * in(s, 3);
  };
  const analysis::Attribution exact = analysis::attribute(4, AttributionScheme::exact, v);
  for (int i = 0; i < 3; ++i)
    CHECK(exact.share[static_cast<std::size_t>(i)] == doctest::Approx(c / 3));
  CHECK(exact.share[3] == doctest::Approx(1.0));
  CHECK(exact.residual == doctest::Approx(0.0));
  // φ̂_i = ½·c for each member; r = a_T·(1 − |T|/2) = −c/2; φ̂_i − φ_i = c·(½ − 1/3).
  const analysis::Attribution pair = analysis::attribute(4, AttributionScheme::pairwise, v);
  for (int i = 0; i < 3; ++i) {
    CHECK(pair.share[static_cast<std::size_t>(i)] == doctest::Approx(c / 2));
    CHECK(pair.share[static_cast<std::size_t>(i)] - exact.share[static_cast<std::size_t>(i)] ==
          doctest::Approx(c * (0.5 - 1.0 / 3)));
  }
  CHECK(pair.share[3] == doctest::Approx(1.0));
  CHECK(pair.residual == doctest::Approx(-c / 2));
  double sum = pair.residual;
  for (double x : pair.share) sum += x;
  CHECK(sum == doctest::Approx(pair.all_on - pair.all_off));
}

TEST_CASE("A step-like game (the max of two paths): efficiency and symmetry hold exactly") {
  // Two symmetric slowdowns on parallel paths and one on the common path: the step is the longer
  // path plus the common one. Shapley gives the symmetric two the same share and sums to the whole.
  const auto v = [](std::uint32_t s) {
    return std::max(1.0 + 2.0 * in(s, 0), 1.0 + 2.0 * in(s, 1)) + 0.5 * in(s, 2);
  };
  const analysis::Attribution r = analysis::attribute(3, AttributionScheme::exact, v);
  CHECK(r.share[0] == doctest::Approx(1.0));
  CHECK(r.share[1] == doctest::Approx(1.0));
  CHECK(r.share[2] == doctest::Approx(0.5));
  CHECK(r.share[0] + r.share[1] + r.share[2] == doctest::Approx(r.all_on - r.all_off));
}

TEST_CASE("No mechanisms: nothing to attribute, one evaluation") {
  int calls = 0;
  const analysis::Attribution r =
      analysis::attribute(0, AttributionScheme::exact, [&](std::uint32_t) {
        ++calls;
        return 4.0;
      });
  CHECK(r.share.empty());
  CHECK(r.residual == doctest::Approx(0.0));
  CHECK(calls == 1);
}
