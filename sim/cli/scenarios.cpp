#include "sim/cli/scenarios.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "sim/cli/options.hpp"
#include "sim/config/load.hpp"

namespace stepsim::cli {

spec::ClusterSpec load_cluster_checked(const std::string& file,
                                       const std::vector<config::Override>& overrides,
                                       const OutputSet& outputs) {
  spec::ClusterSpec c = config::load_cluster(file, overrides, config::Tables::skip);
  outputs.check_read();  // every file the cluster named was registered as it was read
  return c;
}

namespace {

bool sets_faults(const config::Override& o) {
  return (!o.path.empty() && o.path[0] == "faults") ||
         (o.path.size() > 1 && o.path[0] == "cluster" && o.path[1] == "faults");
}

}  // namespace

std::vector<spec::ScenarioSpec> load_scenarios(const std::vector<std::string>& files,
                                               const std::vector<config::Override>& all, bool exact,
                                               const OutputSet& outputs, bool jobs) {
  // Jobs: the later ones first, without fault overrides, to number the first job's faults on
  // every job's nodes.
  std::vector<config::Override> later;
  for (const config::Override& o : all)
    if (!jobs || !sets_faults(o)) later.push_back(o);
  std::vector<spec::ScenarioSpec> specs(files.size());
  int later_nodes = 0;
  for (std::size_t i = jobs ? 1 : 0; i < files.size(); ++i) {
    specs[i] = config::load_scenario(files[i], later);
    later_nodes += specs[i].cluster.nodes;
  }
  if (jobs && !files.empty()) specs[0] = config::load_scenario(files[0], all, later_nodes);
  std::vector<std::string> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& f = files[i];
    const std::vector<config::Override>& overrides = i == 0 ? all : later;
    specs[i].exact = exact;
    for (const std::string& n : specs[i].model.not_modelled)
      spdlog::warn("{}: the model's config.json sets what stepsim does not model: {}", f, n);
    for (const std::string& w : specs[i].without_effect) spdlog::warn("{}", w);
    // The file's name no longer describes what runs: say what changed.
    if (!overrides.empty()) {
      std::string sets;
      for (const auto& o : overrides) sets += (sets.empty() ? "" : " ") + o.option + " " + o.text;
      specs[i].name += " (overridden: " + sets + ")";
    }
    inputs.insert(inputs.end(), specs[i].where.files.begin(), specs[i].where.files.end());
  }
  outputs.check_inputs(inputs);
  return specs;
}

std::vector<run::Limits> limits_of(const std::vector<std::string>& files,
                                   const StepLimits& limits) {
  std::vector<run::Limits> out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    run::Limits l = limits.limits;
    l.outputs = i == 0 ? limits.first : limits.rest;
    l.memory_what =
        files[i] +
        (i > 0 ? ": simulating this step after the ones before it" : ": simulating this step") +
        (i == 0 && limits.first.any() && !limits.rest.any() ? " and writing its outputs" : "");
    l.memory_hint = limits.memory_hint;
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<run::Prepared> prepare_all(const std::vector<std::string>& files,
                                       const std::vector<spec::ScenarioSpec>& specs,
                                       const StepLimits& limits,
                                       const workload::ParallelPlan* first_plan) {
  std::vector<run::Limits> each = limits_of(files, limits);
  std::vector<run::Prepared> out;
  double before = 0.0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    each[i].memory_before = before;
    out.push_back(with_file(
        files[i], [&] { return run::prepare(specs[i], each[i], i == 0 ? first_plan : nullptr); }));
    before += out.back().estimates.memory_bytes + out.back().estimates.output_bytes;
  }
  return out;
}

void warn_if_over_memory(const std::string& file, double peak_bytes, double capacity_bytes) {
  if (peak_bytes > capacity_bytes)
    spdlog::warn("{}: peak memory {:.1f} GB per GPU exceeds the device's {:.1f} GB", file,
                 peak_bytes / 1e9, capacity_bytes / 1e9);
}

std::vector<run::Result> simulate_all(const std::vector<std::string>& files,
                                      std::vector<run::Prepared> prepared,
                                      const engine::RunControl& control) {
  std::vector<run::Result> results;
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    results.push_back(
        with_file(files[i], [&] { return run::complete(std::move(prepared[i]), &control); }));
    warn_if_over_memory(files[i], results.back().memory.peak_bytes,
                        results.back().prepared.memory.capacity);
  }
  return results;
}

std::string output_directory(const char* option, const std::string& dir, bool create) {
  namespace fs = std::filesystem;
  const engine::SourceLoc at{option, 0, 0};
  const std::string hint = "name a directory, or a new name in an existing one";
  std::error_code ec;
  if (dir.empty()) throw engine::UserError(at, "the output directory is empty", hint);
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw engine::UserError(at, "'" + dir + "' is not a directory", hint);
    return dir;
  }
  const fs::path parent = fs::path(dir).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw engine::UserError(at, "no directory " + parent.string() + " to make '" + dir + "' in",
                            hint);
  if (create && (!fs::create_directory(dir, ec) || ec))
    throw engine::UserError(at, "cannot create '" + dir + "': " + ec.message(), hint);
  return dir;
}

}  // namespace stepsim::cli
