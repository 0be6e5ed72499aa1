// The outcome of a layout search (planner.hpp) as text, JSON or CSV. Deterministic: the search's
// wall times appear only when asked for (`timing`).
#pragma once

#include <string>

#include "sim/format/json_writer.hpp"
#include "sim/search/planner.hpp"

namespace stepsim::report {

// A winner whose simulated step is within this fraction of the first's is marked as tied with it:
// GEMM rates of GPUs of one model spread by about 1 % (standard deviation over Perlmutter's A100s,
// IPDPS'26, DOI 10.1109/IPDPS65963.2026.00079: topologies/a100.yaml's variability), so a smaller
// difference between two layouts is not one a cluster would show reliably.
inline constexpr double kTieFraction = 0.01;
// Whether winner k (0 the first) is tied with the first.
bool tied_with_first(const search::PlanResult& r, std::size_t k);

// `scenario_file`: the scenario the plan started from ("" for MODEL CLUSTER), named in the text
// and in the winner's command; `sets`: the key=value overrides the plan ran with (its --set,
// --fix, --gpus, --global-batch and --seq), repeated in that command.
std::string plan_text(const search::PlanResult& r, bool timing,
                      const std::string& scenario_file = "",
                      const std::vector<std::string>& sets = {});
std::string plan_json(const search::PlanResult& r, bool timing);
// One row per winner, then one per family without a winner (its best layout and why).
std::string plan_csv(const search::PlanResult& r);

// A simulation's figures as JSON fields (step_s, tokens_per_s_per_gpu, mfu, breakdown_s,
// peak_memory_gb, fits), shared by plan and sweep.
void simulated_json(format::JsonWriter& j, const search::Simulated& s);
// A simulation's binding resource (analysis::Resource, as Simulated keeps it) as its JSON key.
std::string resource(int r);

}  // namespace stepsim::report
