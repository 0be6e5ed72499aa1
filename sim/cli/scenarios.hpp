// The scenarios a simulating command (run, compare, report) reads and steps it simulates.
#pragma once

#include <string>
#include <vector>

#include "sim/cli/output_file.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/run/step_simulation.hpp"

namespace stepsim::cli {

// Loads every scenario file with the overrides (throws engine::UserError), marks it exact or not,
// and refuses (engine::UserError) an output of `outputs` that is one of the files they read.
// Loads the cluster file with the overrides and refuses (engine::UserError) at once an output of
// `outputs` that is one of the files it read (the cluster, its device, placement and tables),
// before the command's long work.
spec::ClusterSpec load_cluster_checked(const std::string& file,
                                       const std::vector<config::Override>& overrides,
                                       const OutputSet& outputs);

std::vector<spec::ScenarioSpec> load_scenarios(const std::vector<std::string>& files,
                                               const std::vector<config::Override>& overrides,
                                               bool exact, const OutputSet& outputs);

// Simulates each scenario in turn (with its layout from `plans` when the caller made them), a time
// beyond the clock's range reported at its file; warns (not an error: the page or table shows it)
// when a step's peak memory exceeds the device's.
std::vector<run::StepSimulation> simulate_all(
    const std::vector<std::string>& files, const std::vector<spec::ScenarioSpec>& specs,
    const engine::RunControl& control, double max_ops,
    const std::vector<workload::ParallelPlan>& plans = {});

}  // namespace stepsim::cli
