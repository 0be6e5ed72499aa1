// The report of a simulated step: a text table, JSON with the stable keys of `stepsim run
// --json`, a side-by-side comparison of several scenarios, and CSV: a row per pipeline rank
// (`run --csv`) or per scenario (`compare --csv`).
#pragma once

#include <string>
#include <vector>

#include "sim/format/json_writer.hpp"
#include "sim/run/pipeline.hpp"

namespace stepsim::report {

// The simulation's own wall time is the one figure that changes from run to run. It is shown only
// when `timing` is set; otherwise `sim.wall_s` is null and the output is byte-identical run to run.
std::string step_text(const run::Result& s, bool timing = false);
void step_json(format::JsonWriter& out, const run::Result& s, bool timing = false);
std::string step_comparison_text(const std::vector<const run::Result*>& runs,
                                 const std::vector<std::string>& labels);
std::string step_ranks_csv(const run::Result& s, const std::string& label);
std::string step_comparison_csv(const std::vector<const run::Result*>& runs,
                                const std::vector<std::string>& labels);

}  // namespace stepsim::report
