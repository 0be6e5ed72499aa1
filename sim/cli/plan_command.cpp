// stepsim plan MODEL CLUSTER: the layout search (plan/planner.hpp) on a base scenario made of the
// model, the cluster and the training sizes given.
#include <boost/program_options.hpp>
#include <filesystem>
#include <set>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/config/scenario_writer.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/search/planner.hpp"
#include "sim/workload/checks.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

std::string join_key(const std::vector<std::string>& path) {
  std::string k;
  for (std::size_t i = 0; i < path.size(); ++i) k += (i ? "." : "") + path[i];
  return k;
}

// A path for the generated base scenario: absolute, so that it does not depend on where the
// scenario text is anchored; a quoted YAML string.
std::string yaml_path(const std::string& file) {
  const std::string abs = std::filesystem::absolute(file).lexically_normal().string();
  std::string out = "\"";
  for (char c : abs) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int plan_command(const Args& args) {
  po::options_description opts(
      "stepsim plan MODEL CLUSTER --global-batch B [options]\n"
      "stepsim plan SCENARIO [options]\n\n"
      "Searches the parallel layouts of MODEL on CLUSTER (or of a scenario's model on its "
      "cluster,\n"
      "with its precision, sequence, batch and software): enumerates dp, pp, tp, ep, sequence\n"
      "parallelism, ZeRO stage, schedule and virtual stages, micro-batch size, recomputation,\n"
      "communication SMs and stage splits; prunes by validity and memory; ranks by the roofline\n"
      "bound; simulates the best; ranks those by simulated tokens/s per GPU; and says why every\n"
      "other family of layouts lost. Under mpirun (a build with MPI) the layouts spread over\n"
      "the ranks; rank 0 writes the result.\n\nOptions");
  std::vector<std::string> files, sets, fixes;
  std::string output, max_wall, max_memory = kDefaultMaxMemory, batch, seq = "4096", gpus,
                                top = "10", jobs = "1", winner_file;
  add_common_options(opts, sets);
  opts.add_options()("global-batch", po::value(&batch)->value_name("B"),
                     "sequences per step (required)")("seq", po::value(&seq)->value_name("S"),
                                                      "tokens per sequence (default 4096)")(
      "gpus", po::value(&gpus)->value_name("N"),
      "use N GPUs of the cluster: N / GPUs per node nodes (default: all)")(
      "fix", po::value(&fixes)->value_name("KEY=VALUE"),
      "pin a search dimension (e.g. parallelism.pp=16) or set any other scenario key "
      "(e.g. training.precision.gemm=fp8); repeatable")(
      "top", po::value(&top)->value_name("K"), "winners to simulate and show (default 10)")(
      "timing", "show the search's wall times (they vary run to run)")(
      "winner", po::value(&winner_file)->value_name("FILE"),
      "also write the winner as a scenario file: stepsim run FILE gives its step time");
  add_search_options(opts, jobs, output);
  add_max_wall_option(opts, max_wall);
  add_max_memory_option(opts, max_memory);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  // Join the MPI job (if any) first: from here on only rank 0 writes.
  run::Workers workers(search_jobs(vm, jobs));
  const bool from_scenario =
      files.size() == 1 && config::detect_kind(files[0]) == config::FileKind::scenario;
  if (files.size() != 2 && !from_scenario)
    throw engine::UserError(
        {"<command line>", 0, 0},
        "plan needs a scenario, or a model file and a cluster file, got " +
            std::to_string(files.size()) + " file(s)" +
            (files.size() == 1 ? " (not a scenario)" : ""),
        "stepsim plan models/deepseek-v3.yaml topologies/h800-256x8-mpft.yaml "
        "--global-batch 15360, or stepsim plan scenarios/deepseek-v3-dualpipe.yaml");
  if (!vm.count("global-batch") && !from_scenario)
    throw engine::UserError({"--global-batch", 0, 0}, "plan needs the global batch",
                            "--global-batch 15360 (sequences per step)");

  const long long b =
      vm.count("global-batch") ? integer_option("global-batch", batch, 1, 1LL << 40) : 0;
  const long long s = integer_option("seq", seq, 1, 1 << 24);
  const int k = static_cast<int>(integer_option("top", top, 1, 1000));
  for (const auto f : {0, 1}) {
    if (from_scenario) break;
    if (config::detect_kind(files[f]) !=
        (f == 0 ? config::FileKind::model : config::FileKind::cluster))
      throw engine::UserError(
          {files[f], 0, 0},
          std::string("this is not a ") + (f == 0 ? "model" : "cluster") + " file",
          "stepsim plan MODEL CLUSTER: the model first, then the cluster");
  }

  std::vector<config::Override> overrides = parse_overrides(sets);
  std::set<std::string> fixed;
  const auto& dims = search::dimension_keys();
  for (const config::Override& o : overrides) {
    const std::string key = join_key(o.path);
    if (std::find(dims.begin(), dims.end(), key) != dims.end())
      throw engine::UserError({"--set " + o.text, 0, 0},
                              "'" + key + "' is a dimension of the search",
                              "pin it with --fix " + o.text);
  }
  // A key given twice (or with one inside it), or given both by --fix and by the option that
  // sets it, would let one silently override the other.
  std::vector<std::pair<std::string, std::string>> given;  // key, as the user wrote it
  for (const config::Override& o : overrides)
    given.emplace_back(join_key(o.path), "--set " + o.text);
  if (vm.count("global-batch")) given.emplace_back("training.global_batch", "--global-batch");
  if (vm.count("seq")) given.emplace_back("training.seq_len", "--seq");
  if (vm.count("gpus")) given.emplace_back("cluster.nodes", "--gpus");
  for (const std::string& f : fixes) {
    config::Override o = config::parse_override(f, "--fix");
    const std::string key = join_key(o.path);
    for (const auto& [other, by] : given)
      if (config::keys_overlap(other, key))
        throw engine::UserError(
            {"--fix " + f, 0, 0},
            "'" + key + "' is also set by " + by + "; one would override the other",
            "give it once");
    given.emplace_back(key, "--fix " + f);
    if (key == "parallelism.stage_layers" || key.rfind("parallelism.stage_layers.", 0) == 0)
      throw engine::UserError({"--fix " + f, 0, 0}, "the search makes its own stage splits",
                              "pin the split style with --fix parallelism.account_embedding=true");
    if (std::find(dims.begin(), dims.end(), key) != dims.end()) fixed.insert(key);
    overrides.push_back(std::move(o));
  }
  if (from_scenario) {  // the scenario's sequence and batch, unless given
    if (vm.count("global-batch"))
      overrides.push_back(
          config::parse_override("training.global_batch=" + batch, "--global-batch"));
    if (vm.count("seq"))
      overrides.push_back(config::parse_override("training.seq_len=" + seq, "--seq"));
  }
  // The scenario the search starts from, with every override.
  auto base_scenario = [&](const std::vector<config::Override>& with) {
    return from_scenario ? config::load_scenario(files[0], with)
                         : config::parse_scenario("name: plan\nmodel: " + yaml_path(files[0]) +
                                                      "\ncluster: " + yaml_path(files[1]) +
                                                      "\ntraining: {seq_len: " + std::to_string(s) +
                                                      ", global_batch: " + std::to_string(b) +
                                                      "}\nparallelism: {pp: 1}\n",
                                                  "stepsim plan", with);
  };
  if (vm.count("gpus")) {
    // The cluster as the overrides leave it (a --set cluster.nodes too).
    const spec::ClusterSpec cluster = base_scenario(overrides).cluster;
    const long long n = integer_option("gpus", gpus, 1, cluster.world_size());
    if (n % cluster.gpus_per_node != 0)
      throw engine::UserError({"--gpus", 0, 0},
                              std::to_string(n) + " GPUs are not whole nodes of " +
                                  std::to_string(cluster.gpus_per_node),
                              "use a multiple of " + std::to_string(cluster.gpus_per_node));
    overrides.push_back(config::parse_override(
        "cluster.nodes=" + std::to_string(n / cluster.gpus_per_node), "--gpus"));
  }
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  if (vm.count("winner")) outputs.add("--winner", winner_file);
  const engine::RunControl control = run_control(vm, max_wall);
  outputs.set_control(&control);
  workers.set_control(&control);

  const spec::ScenarioSpec base = base_scenario(overrides);
  outputs.check_inputs(base.where.files);
  workload::check_words(base);
  search::SearchSpace space = search::enumerate(base, fixed);
  if (space.layouts.empty())
    throw engine::UserError({"--fix", 0, 0}, "no layout is left to search",
                            "tp x pp must divide the " + std::to_string(base.cluster.world_size()) +
                                " GPUs (and a pinned dp be what they leave); pin fewer dimensions");
  search::PlanOptions options;
  options.top = k;
  // Per simulation, whatever -j (so that the result does not depend on it): with -j N up to N
  // run at once.
  options.max_memory_bytes = max_memory_bytes(max_memory);
  const search::PlanResult result = with_file(
      files[0], [&] { return search::run_plan(base, std::move(space), options, workers); });
  if (!workers.root()) return 0;
  // Every layout invalid under the pinned dimensions: the pins are the user's mistake.
  if (!fixes.empty() &&
      std::all_of(result.evaluations.begin(), result.evaluations.end(),
                  [](const auto& e) { return e.status == search::Evaluation::Status::invalid; })) {
    std::string pins;
    for (const std::string& f : fixes) pins += (pins.empty() ? "--fix " : ", --fix ") + f;
    throw engine::UserError(
        {"--fix", 0, 0},
        "every layout is invalid with " + pins + "; the first: " + result.evaluations[0].reason,
        "pin fewer dimensions, or other values");
  }
  const bool timing = vm.count("timing") > 0;
  // What the winner's command repeats: the batch and sequence a MODEL CLUSTER plan was given,
  // and every override.
  std::vector<std::string> run_sets;
  if (!from_scenario)
    run_sets = {"training.seq_len=" + std::to_string(s),
                "training.global_batch=" + std::to_string(b)};
  for (const config::Override& o : overrides)  // a pinned dimension: the winner's value follows
    if (std::find(dims.begin(), dims.end(), join_key(o.path)) == dims.end())
      run_sets.push_back(o.text);
  if (!winner_file.empty()) {
    if (result.winners == 0)
      throw engine::UserError({"--winner", 0, 0}, "the plan has no winner to write: no layout fits",
                              "see the families without a winner; give more GPUs or memory");
    const search::Candidate& best = result.simulated[0];
    std::vector<std::string> winner_sets = run_sets;
    for (const std::string& s :
         search::set_arguments(result.space.layouts[best.layout], result.space.recomputes))
      winner_sets.push_back(s);
    const std::string layout =
        search::describe(result.space.layouts[best.layout], result.space.recomputes);
    config::ScenarioBase from;
    if (from_scenario) {
      from.scenario = files[0];
    } else {
      from.model = files[0];
      from.cluster = files[1];
    }
    outputs.stage(
        winner_file,
        config::derived_scenario(
            from, winner_sets, base.model.name + " on " + base.cluster.name + ", " + layout,
            winner_file,
            "The winner of stepsim plan " +
                engine::escape_control_bytes(from_scenario ? files[0] : files[0] + " " + files[1]) +
                ": " + layout + ",\n" + format::fixed(best.sim.step_s, 3) + " s per step, " +
                format::fixed(best.sim.tokens_per_s_per_gpu, 0) +
                " tokens/s per GPU as simulated. Run it: stepsim run " +
                engine::escape_control_bytes(winner_file)));
  }
  const std::string out =
      vm.count("json") ? report::plan_json(result, timing)
      : vm.count("csv")
          ? report::plan_csv(result)
          : report::plan_text(result, timing, from_scenario ? files[0] : "", run_sets);
  outputs.finish_report(output, out);
  return 0;
}

}  // namespace stepsim::cli
