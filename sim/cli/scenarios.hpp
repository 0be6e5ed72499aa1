// The scenarios a simulating command (run, compare, report) reads and steps it simulates.
#pragma once

#include <string>
#include <vector>

#include "sim/cli/output_file.hpp"
#include "sim/config/yaml_reader.hpp"
#include "sim/run/pipeline.hpp"

namespace stepsim::cli {

// Loads every scenario file with the overrides (throws engine::UserError), marks it exact or not,
// and refuses (engine::UserError) an output of `outputs` that is one of the files they read.
// Loads the cluster file with the overrides for a command that uses its network alone (collective,
// topo: the device's kernel tables are registered, not read; config::Tables) and refuses
// (engine::UserError) at once an output of `outputs` that is one of the files it read or names
// (the cluster, its device, placement and tables), before the command's long work.
spec::ClusterSpec load_cluster_checked(const std::string& file,
                                       const std::vector<config::Override>& overrides,
                                       const OutputSet& outputs);

// `jobs`: the files are jobs on one fabric (run A --with B), the first job's cluster the fabric
// and its faults the fabric's: numbered on every job's nodes, and `--set faults=` or
// `cluster.faults=` given to it alone.
std::vector<spec::ScenarioSpec> load_scenarios(const std::vector<std::string>& files,
                                               const std::vector<config::Override>& overrides,
                                               bool exact, const OutputSet& outputs,
                                               bool jobs = false);

// An output directory given by `option` (run --trace-dir, export): an existing directory, or a
// new one in an existing directory, made when `create` (once the scenarios have loaded, so that
// its files can be declared as outputs before the step is simulated); throws engine::UserError.
std::string output_directory(const char* option, const std::string& dir, bool create);

// What each step of a command may cost: `limits` for all, with the memory of the steps before it
// counted (they stay in memory together), named by its file in the refusal; the first step's
// outputs are `first` (a trace, a diagram), every other's `rest`.
struct StepLimits {
  run::Limits limits;
  run::Outputs first, rest;
  std::string memory_hint;
};

// Prepares each scenario in turn (run::prepare: every refusal, the program built once), the
// first with its layout `first_plan` when the caller has made it.
std::vector<run::Prepared> prepare_all(const std::vector<std::string>& files,
                                       const std::vector<spec::ScenarioSpec>& specs,
                                       const StepLimits& limits,
                                       const workload::ParallelPlan* first_plan = nullptr);

// The limits of each step as prepare_all gives them (for steps simulated together, run::jobs).
std::vector<run::Limits> limits_of(const std::vector<std::string>& files, const StepLimits& limits);

// The one warning for a step whose memory per GPU (the estimate before a simulation, the
// simulated peak after one) exceeds the device's: not an error, since tables and pages show it.
void warn_if_over_memory(const std::string& file, double peak_bytes, double capacity_bytes);

// Bounds, simulates and measures each prepared step in turn, a time beyond the clock's range
// reported at its file; warn_if_over_memory for each.
std::vector<run::Result> simulate_all(const std::vector<std::string>& files,
                                      std::vector<run::Prepared> prepared,
                                      const engine::RunControl& control);

}  // namespace stepsim::cli
