// A sweep's points (search/sweep.hpp) as text, JSON and CSV: a row per point with its values,
// step time, breakdown (shares of the step in the text), roofline bound and memory, or its error
// (in the text, listed under the table so that it does not widen the columns).
#pragma once

#include <string>
#include <vector>

#include "sim/search/sweep.hpp"

namespace stepsim::report {

// `file`: the scenario swept, named in the text's first line.
std::string sweep_text(const std::string& file, const search::Sweep& sweep,
                       const std::vector<search::Simulated>& results);
std::string sweep_json(const search::Sweep& sweep, const std::vector<search::Simulated>& results);
std::string sweep_csv(const search::Sweep& sweep, const std::vector<search::Simulated>& results);

}  // namespace stepsim::report
