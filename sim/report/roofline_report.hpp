// The roofline bound as a self-explaining text report, a side-by-side comparison of several
// scenarios, and JSON (the stable keys of `stepsim roofline --json`).
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

}  // namespace stepsim::report
