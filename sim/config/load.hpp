// YAML files to spec structs: devices, clusters, models (stepsim YAML or a Hugging Face
// config.json), scenarios. Paths inside a file are relative to that file. Every problem throws
// engine::UserError at the offending file:line:column.
#pragma once

#include <string>
#include <vector>

#include "sim/config/yaml_reader.hpp"
#include "sim/hw/cluster_spec.hpp"
#include "sim/workload/scenario_spec.hpp"

namespace stepsim::config {

hw::DeviceSpec read_device(const Node& node);
// A device's `kernel_tables:` list (files relative to the device file, or inline tables) into
// d.tables; the device's compute rates must be read first.
void read_kernel_tables(const Node& list, hw::DeviceSpec& d);
// `dir` resolves a `device:` file name; overrides under `prefix` + ".device" apply to it.
hw::ClusterSpec read_cluster(const Node& node, const std::string& dir,
                             const std::vector<Override>& overrides, const std::string& prefix);
// A `faults:` list, checked against the cluster's nodes, GPUs and switches.
std::vector<hw::FaultSpec> read_faults(const Node& node, const hw::ClusterSpec& cluster);
workload::ModelSpec read_model(const Node& node);
workload::ModelSpec read_hf_config(const Node& node);

hw::DeviceSpec load_device(const std::string& file, const std::vector<Override>& overrides = {});
hw::ClusterSpec load_cluster(const std::string& file, const std::vector<Override>& overrides = {});
workload::ModelSpec load_model(const std::string& file,
                               const std::vector<Override>& overrides = {});
workload::ScenarioSpec load_scenario(const std::string& file,
                                     const std::vector<Override>& overrides = {});
// A scenario given as text; `file` names it and anchors the relative paths it contains.
workload::ScenarioSpec parse_scenario(const std::string& text, const std::string& file,
                                      const std::vector<Override>& overrides = {});

enum class FileKind { device, cluster, model, scenario };
// Guesses what a file holds from its keys (scenario: training/parallelism; cluster: nodes;
// device: compute; otherwise a model).
FileKind detect_kind(const std::string& file);

}  // namespace stepsim::config
