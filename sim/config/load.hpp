// YAML files to spec structs: devices, clusters, models (stepsim YAML or a Hugging Face
// config.json), scenarios. Paths inside a file are relative to that file. Every problem throws
// engine::UserError at the offending file:line:column.
#pragma once

#include <string>
#include <vector>

#include "sim/config/yaml_reader.hpp"
#include "sim/spec/cluster.hpp"
#include "sim/spec/scenario.hpp"

namespace stepsim::config {

enum class FileKind { device, cluster, model, scenario, software };
// Guesses what a file holds from its keys (scenario: training/parallelism; cluster: nodes;
// device: compute; software preset: gemm_library/attention_kernel; otherwise a model).
FileKind detect_kind(const std::string& file);
// Throws engine::UserError at `node` when it holds another kind's keys (scenario: training or
// parallelism; cluster: nodes or gpus_per_node; device: compute or sms; model: hidden or layers;
// software preset: gemm_library or attention_kernel)
// and none of `want`'s: a model file given where a scenario belongs is named as a model file,
// rather than refused for its first key a scenario does not know. The readers below check it.
void expect_kind(const Node& node, FileKind want);

// Whether a device's calibration tables (`kernel_tables:`) are read. `skip`, for the commands that
// use the network alone (collective, topo): a table file is registered as an input of the command
// (so that no output replaces it) but neither opened nor checked; the inline tables are not read.
// A device's eleven tables are about half of such a command's run on a thousand GPUs.
enum class Tables { read, skip };

spec::DeviceSpec read_device(const Node& node, Tables tables = Tables::read);
// A device's `kernel_tables:` list (files relative to the device file, or inline tables) into
// d.tables; the device's compute rates must be read first.
void read_kernel_tables(const Node& list, spec::DeviceSpec& d);
// The files of a `kernel_tables:` list registered as inputs of the command, not read (a list that
// is not a sequence, or an item that is not text, is still refused).
void note_kernel_tables(const Node& list);
// `dir` resolves a `device:` file name; overrides under `prefix` + ".device" apply to it.
// `later_nodes`: see read_faults.
spec::ClusterSpec read_cluster(const Node& node, const std::string& dir,
                               const std::vector<Override>& overrides, const std::string& prefix,
                               int later_nodes = 0, Tables tables = Tables::read);
// A `faults:` list, checked against the cluster's nodes, GPUs and switches. A cluster that is the
// fabric of jobs after its own (stepsim run A --with B: the first job's cluster, whose faults are
// the fabric's) numbers them on the whole fabric: its own nodes, then `later_nodes` more.
std::vector<spec::FaultSpec> read_faults(const Node& node, const spec::ClusterSpec& cluster,
                                         int later_nodes = 0);
spec::ModelSpec read_model(const Node& node);
// A precision policy (training.precision, a model's training_precision): the keys of
// spec::PrecisionPolicy; `source` (text) allowed when `with_source`, returned.
std::string read_precision(const Node& node, spec::PrecisionPolicy& p, bool with_source = false);
spec::ModelSpec read_hf_config(const Node& node);

spec::DeviceSpec load_device(const std::string& file, const std::vector<Override>& overrides = {});
// A software preset alone (`stepsim check`), read into a default scenario: its software and the
// training fields it sets (attention kernel and dropout).
spec::ScenarioSpec load_software(const std::string& file,
                                 const std::vector<Override>& overrides = {});
spec::ClusterSpec load_cluster(const std::string& file, const std::vector<Override>& overrides = {},
                               Tables tables = Tables::read);
spec::ModelSpec load_model(const std::string& file, const std::vector<Override>& overrides = {});
// `later_nodes`: the scenario's and its cluster's faults are numbered on a fabric of this many
// nodes beyond the cluster's own (read_faults).
spec::ScenarioSpec load_scenario(const std::string& file,
                                 const std::vector<Override>& overrides = {}, int later_nodes = 0);
// A scenario given as text; `file` names it and anchors the relative paths it contains.
spec::ScenarioSpec parse_scenario(const std::string& text, const std::string& file,
                                  const std::vector<Override>& overrides = {});

}  // namespace stepsim::config
