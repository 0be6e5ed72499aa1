#include "sim/cli/scenarios.hpp"

#include <spdlog/spdlog.h>

#include "sim/cli/options.hpp"
#include "sim/config/load.hpp"

namespace stepsim::cli {

spec::ClusterSpec load_cluster_checked(const std::string& file,
                                       const std::vector<config::Override>& overrides,
                                       const OutputSet& outputs) {
  spec::ClusterSpec c = config::load_cluster(file, overrides);
  outputs.check_read();  // every file the cluster named was registered as it was read
  return c;
}

std::vector<spec::ScenarioSpec> load_scenarios(const std::vector<std::string>& files,
                                               const std::vector<config::Override>& overrides,
                                               bool exact, const OutputSet& outputs) {
  std::vector<spec::ScenarioSpec> specs;
  std::vector<std::string> inputs;
  for (const auto& f : files) {
    specs.push_back(config::load_scenario(f, overrides));
    specs.back().exact = exact;
    for (const std::string& n : specs.back().model.not_modelled)
      spdlog::warn("{}: the model's config.json sets what stepsim does not model: {}", f, n);
    // The file's name no longer describes what runs: say what changed.
    if (!overrides.empty()) {
      std::string sets;
      for (const auto& o : overrides) sets += (sets.empty() ? "" : " ") + o.option + " " + o.text;
      specs.back().name += " (overridden: " + sets + ")";
    }
    inputs.insert(inputs.end(), specs.back().where.files.begin(), specs.back().where.files.end());
  }
  outputs.check_inputs(inputs);
  return specs;
}

std::vector<run::StepSimulation> simulate_all(const std::vector<std::string>& files,
                                              const std::vector<spec::ScenarioSpec>& specs,
                                              const engine::RunControl& control, double max_ops,
                                              const std::vector<workload::ParallelPlan>& plans) {
  std::vector<run::StepSimulation> sims;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const workload::ParallelPlan* plan = i < plans.size() ? &plans[i] : nullptr;
    sims.push_back(
        with_file(files[i], [&] { return run::simulate_step(specs[i], &control, max_ops, plan); }));
    const auto& s = sims.back();
    if (s.memory.peak_bytes > s.roofline.memory.capacity)
      spdlog::warn("{}: peak memory {:.1f} GB per GPU exceeds the device's {:.1f} GB", files[i],
                   s.memory.peak_bytes / 1e9, s.roofline.memory.capacity / 1e9);
  }
  return sims;
}

}  // namespace stepsim::cli
