// The what-if page (stepsim whatif --html): the waterfall from the roofline bound to the simulated
// step as a chart, bar by bar, and its table.
#pragma once

#include <string>

#include "sim/run/whatif.hpp"

namespace stepsim::report {

// The waterfall as an SVG: one row per term, each bar starting where the one above ended (a
// negative term goes left), the bound and the step as whole bars.
std::string whatif_svg(const run::WhatIf& w);
std::string whatif_page(const run::WhatIf& w);

}  // namespace stepsim::report
