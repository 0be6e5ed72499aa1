// The roofline bound as a self-explaining text report, a side-by-side comparison of several
// scenarios, JSON (the stable keys of `stepsim roofline --json`) and CSV (a row per scenario).
#pragma once

#include <string>
#include <vector>

#include "sim/analysis/roofline.hpp"
#include "sim/format/json_writer.hpp"

namespace stepsim::report {

std::string roofline_text(const analysis::Roofline& r, const spec::ScenarioSpec& spec);
std::string roofline_comparison_text(const std::vector<analysis::Roofline>& rs,
                                     const std::vector<std::string>& labels);
void roofline_json(format::JsonWriter& out, const analysis::Roofline& r,
                   const spec::ScenarioSpec& spec);
std::string roofline_csv(const std::vector<analysis::Roofline>& rs,
                         const std::vector<spec::ScenarioSpec>& specs,
                         const std::vector<std::string>& labels);

}  // namespace stepsim::report
