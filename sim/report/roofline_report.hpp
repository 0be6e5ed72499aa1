// The roofline bound as a self-explaining text report, a side-by-side comparison of several
// scenarios, JSON (the stable keys of `stepsim roofline --json`) and CSV (a row per scenario).
#pragma once

#include <string>
#include <vector>

#include "sim/format/json_writer.hpp"
#include "sim/run/pipeline.hpp"

namespace stepsim::report {

std::string roofline_text(const run::Bounded& b);
std::string roofline_comparison_text(const std::vector<const run::Bounded*>& rs,
                                     const std::vector<std::string>& labels);
void roofline_json(format::JsonWriter& out, const run::Bounded& b);
std::string roofline_csv(const std::vector<const run::Bounded*>& rs,
                         const std::vector<std::string>& labels);

}  // namespace stepsim::report
