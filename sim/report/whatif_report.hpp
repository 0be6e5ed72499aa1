// The what-if waterfall (run/whatif.hpp): from the roofline bound to the simulated step, the time
// each term adds, as text and JSON.
#pragma once

#include <string>
#include <vector>

#include "sim/format/json_writer.hpp"
#include "sim/run/whatif.hpp"

namespace stepsim::report {

std::string whatif_text(const run::WhatIf& w);
void whatif_json(format::JsonWriter& j, const run::WhatIf& w);
// A row per term: the bound, the bars, the step.
std::string whatif_csv(const run::WhatIf& w);

// The waterfall's bars in order, each with its word, its label and its seconds: the terms between
// the bound and the step (the bound and the step themselves are not bars). Shared by the text, the
// JSON and the HTML chart.
struct WaterfallBar {
  std::string word, label;
  double seconds = 0.0;
  bool active = true;
};
std::vector<WaterfallBar> waterfall_bars(const run::WhatIf& w);

}  // namespace stepsim::report
