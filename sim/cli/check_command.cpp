#include <boost/program_options.hpp>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/config/load.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/report/spec_summary.hpp"
#include "sim/workload/checks.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int check_command(const Args& args) {
  po::options_description opts(
      "stepsim check FILE... [options]\n\n"
      "Validates device, cluster, model (YAML or config.json) and scenario files\n"
      "and prints what they resolve to.\n\nOptions");
  std::vector<std::string> files, sets;
  add_common_options(opts, sets);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.empty())
    throw engine::UserError({"<command line>", 0, 0}, "check needs at least one file",
                            "stepsim check scenarios/deepseek-v3-dualpipe.yaml");
  const std::vector<config::Override> overrides = parse_overrides(sets);

  std::string out;
  for (const auto& f : files) {
    out += engine::escape_control_bytes(f) + ": ok\n";  // one line, whatever the path holds
    switch (config::detect_kind(f)) {
      case config::FileKind::device:
        out += report::describe(config::load_device(f, overrides));
        break;
      case config::FileKind::cluster:
        out += report::describe(config::load_cluster(f, overrides));
        break;
      case config::FileKind::model: {
        const spec::ModelSpec m = config::load_model(f, overrides);
        workload::check_recompute_lists(m);
        // A model file alone is described at sequence 4096, causal.
        spec::TrainingSpec t;
        t.seq_len = 4096;
        t.causal = true;
        out += report::describe(m, workload::ModelCost(m, t).figures(), t);
      } break;
      case config::FileKind::scenario: {
        const spec::ScenarioSpec s = config::load_scenario(f, overrides);
        run::Limits bound_only;
        bound_only.max_ops = 0.0;
        out += report::describe(run::bound(run::prepare(s, bound_only)));
        break;
      }
    }
  }
  std::cout << out;
  return 0;
}

}  // namespace stepsim::cli
