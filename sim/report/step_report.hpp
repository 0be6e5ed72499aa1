// The report of a simulated step: a text table, JSON with the stable keys of `stepsim run
// --json`, and a side-by-side comparison of several scenarios.
#pragma once

#include <string>
#include <vector>

#include "sim/analysis/step_simulation.hpp"
#include "sim/report/json_writer.hpp"

namespace stepsim::report {

// The simulation's own wall time is the one figure that changes from run to run. It is shown only
// when `timing` is set; otherwise `sim.wall_s` is null and the output is byte-identical run to run.
std::string step_text(const analysis::StepSimulation& s, const workload::ScenarioSpec& spec,
                      bool timing = false);
void step_json(JsonWriter& out, const analysis::StepSimulation& s,
               const workload::ScenarioSpec& spec, bool timing = false);
std::string step_comparison_text(const std::vector<const analysis::StepSimulation*>& runs,
                                 const std::vector<std::string>& labels);

// Derived figures shared by the text and JSON forms.
struct StepFigures {
  double tokens_per_s_per_gpu = 0.0;
  double tflops_per_gpu = 0.0;
  double mfu =
      0.0;  // model FLOPs (no recompute) / (T · BF16 dense peak), whatever the GEMM precision
  int worst_rank = 0;
};
StepFigures step_figures(const analysis::StepSimulation& s, const workload::ScenarioSpec& spec);

}  // namespace stepsim::report
