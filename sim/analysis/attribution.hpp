// Order-independent attribution of a difference to the mechanisms that make it: Shapley values.
//
// m mechanisms (players); v(S) the value (a step time) with the mechanisms of S switched on and
// the others off, S a bitmask. Mechanism i is credited its marginal effect averaged over every
// order of switching them on:
//     φ_i = Σ_{S ⊆ N∖{i}} |S|!·(m−|S|−1)!/m! · (v(S ∪ {i}) − v(S)),
// and Σ_i φ_i = v(N) − v(∅) exactly (efficiency); a mechanism that changes nothing gets 0, two
// that act alike get the same. This takes 2^m evaluations.
//
// The pairwise scheme takes 2m + 2: each mechanism switched off alone from all on and switched on
// alone from all off,
//     φ̂_i = ½·(v(N) − v(N∖{i})) + ½·(v({i}) − v(∅)).
// Writing v as a sum of interaction terms (its Möbius transform, v(S) = Σ_{T⊆S} a_T), φ_i shares
// every a_T with |T| = k equally among its k members, while φ̂_i takes a_T whole when |T| = 1, half
// when |T| = 2 (exactly as φ_i) and, when |T| >= 3, all of it from v(N) − v(N∖{i}) and none from
// the other side: φ̂_i − φ_i = Σ_{T∋i, |T|>=3} a_T·(½ − 1/|T|). So φ̂ is exact when no three
// mechanisms interact, and Σ φ̂_i misses v(N) − v(∅) by the residual
//     r = v(N) − v(∅) − Σ_i φ̂_i = Σ_{|T|>=3} a_T·(1 − |T|/2),
// which is reported as its own term (interactions of three or more mechanisms), so the terms
// still sum to the difference. |r| is a measure of the scheme's error: each φ̂_i is off by at
// most Σ_{T∋i,|T|>=3} |a_T|·(½ − 1/|T|).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace stepsim::analysis {

enum class AttributionScheme { exact, pairwise };

struct Attribution {
  AttributionScheme scheme = AttributionScheme::exact;
  std::vector<double> share;  // φ_i per mechanism
  double residual = 0.0;      // v(N) − v(∅) − Σ φ_i: 0 (to rounding) for the exact scheme
  double all_on = 0.0, all_off = 0.0;
  int evaluations = 0;  // distinct coalitions evaluated
};

// `value(S)` is called once per distinct coalition the scheme needs, S a bitmask over m < 31
// mechanisms.
Attribution attribute(int m, AttributionScheme scheme,
                      const std::function<double(std::uint32_t)>& value);

}  // namespace stepsim::analysis
