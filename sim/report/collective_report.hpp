// `stepsim collective` (run/collective.hpp) as text (a row per size, then the phases of the
// largest), JSON (every row with its phases) and CSV (a row per size).
#pragma once

#include <string>

#include "sim/run/collective.hpp"

namespace stepsim::report {

// What the user asked for, as they spelled it.
struct CollectiveAsked {
  std::string op, group, fidelity, algorithm;
};

std::string collective_text(const run::CollectiveSizes& s, const CollectiveAsked& asked);
std::string collective_json(const run::CollectiveSizes& s, const CollectiveAsked& asked);
std::string collective_csv(const run::CollectiveSizes& s);

}  // namespace stepsim::report
