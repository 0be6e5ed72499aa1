// stepsim check FILE...: each file validated as what it is (device, cluster, model, scenario,
// software preset)
// and described.
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/config/load.hpp"
#include "sim/config/unit_notes.hpp"
#include "sim/report/spec_summary.hpp"
#include "sim/workload/checks.hpp"

namespace stepsim::cli {

namespace {

std::string describe(const std::string& f, const std::vector<config::Override>& overrides) {
  switch (config::detect_kind(f)) {
    case config::FileKind::device:
      return report::describe(config::load_device(f, overrides));
    case config::FileKind::cluster:
      return report::describe(config::load_cluster(f, overrides));
    case config::FileKind::model: {
      const spec::ModelSpec m = config::load_model(f, overrides);
      workload::check_recompute_lists(m);
      // A model file alone is described at sequence 4096, causal.
      spec::TrainingSpec t;
      t.seq_len = 4096;
      t.causal = true;
      return report::describe(m, workload::ModelCost(m, t).figures(), t);
    }
    case config::FileKind::software: {
      const spec::ScenarioSpec s = config::load_software(f, overrides);
      return "software " + spec::software_words(s) + "\n         source: " + s.software.source +
             "\n";
    }
    case config::FileKind::scenario: {
      run::Limits bound_only;
      bound_only.max_ops = 0.0;
      return report::describe(
          run::bound(run::prepare(config::load_scenario(f, overrides), bound_only)));
    }
  }
  return "";
}

// The files a checked file reads: itself, and a scenario's or a cluster's own.
std::vector<std::string> files_read(const std::string& f,
                                    const std::vector<config::Override>& overrides) {
  switch (config::detect_kind(f)) {
    case config::FileKind::scenario:
      return config::load_scenario(f, overrides).where.files;
    case config::FileKind::cluster: {
      const spec::ClusterSpec c = config::load_cluster(f, overrides);
      std::vector<std::string> files{f};
      if (!c.device_file.empty()) files.push_back(c.device_file);
      return files;
    }
    default:
      return {f};
  }
}

// Sizes and rates given in bits, with what they were read as.
std::string bit_notes(const Invocation& in, const std::string& f) {
  std::vector<std::string> notes;
  for (const std::string& file : files_read(f, in.overrides)) {
    std::ifstream stream(file);
    std::stringstream text;
    text << stream.rdbuf();
    for (const std::string& n : config::bit_quantities(file, text.str())) notes.push_back(n);
  }
  for (const config::Override& o : in.overrides) {
    const auto eq = o.text.find('=');
    for (const std::string& n :
         config::bit_quantities("--set " + o.text.substr(0, eq),
                                eq == std::string::npos ? "" : ":" + o.text.substr(eq + 1), false))
      notes.push_back(n);
  }
  std::string out;
  for (const std::string& n : notes) out += "  units     " + engine::escape_control_bytes(n) + "\n";
  return out;
}

int check(Invocation& in) {
  std::string out;
  for (const auto& f : in.files)  // the name on one line, whatever the path holds
    out +=
        engine::escape_control_bytes(f) + ": ok\n" + describe(f, in.overrides) + bit_notes(in, f);
  std::cout << out;
  return 0;
}

}  // namespace

extern const Command kCheck{
    .name = "check",
    .synopsis = "check FILE...",
    .summary = "validate device/cluster/model/scenario files and show what they resolve to",
    .help =
        "stepsim check FILE... [options]\n\n"
        "Validates device, cluster, model (YAML or config.json) and scenario files\n"
        "and prints what they resolve to.",
    .files = {.min = 1,
              .fewer = "check needs at least one file",
              .hint = "stepsim check scenarios/deepseek-v3-dualpipe.yaml"},
    .handler = check};

}  // namespace stepsim::cli
