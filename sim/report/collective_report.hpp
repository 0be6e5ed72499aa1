// `stepsim collective` (run/collective.hpp) as text (a row per size, then the phases of the
// largest; for a -b/-e sweep nccl-tests' table and its average bus bandwidth), JSON (every row
// with its phases) and CSV (a row per size).
#pragma once

#include <string>

#include "sim/run/collective.hpp"

namespace stepsim::report {

// What the user asked for, as they spelled it.
struct CollectiveAsked {
  std::string op, group, fidelity, algorithm;
  std::string datatype = "float";  // nccl-tests' -d, for the element count
  int datatype_bytes = 4;
  bool sweep = false;  // -b/-e: the text is nccl-tests' table
};

std::string collective_text(const run::CollectiveSizes& s, const CollectiveAsked& asked);
std::string collective_json(const run::CollectiveSizes& s, const CollectiveAsked& asked);
std::string collective_csv(const run::CollectiveSizes& s, const CollectiveAsked& asked);

}  // namespace stepsim::report
