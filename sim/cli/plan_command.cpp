// stepsim plan MODEL CLUSTER | SCENARIO: the layout search (search/planner.hpp) on a base
// scenario made of the model, the cluster and the training sizes given, or of a scenario.
#include <algorithm>
#include <filesystem>
#include <set>

#include "sim/cli/scenarios.hpp"
#include "sim/config/load.hpp"
#include "sim/config/scenario_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/plan_report.hpp"
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

bool is_dimension(const std::string& key) {
  const auto& dims = search::dimension_keys();
  return std::find(dims.begin(), dims.end(), key) != dims.end();
}

void plan_options(po::options_description& opts) {
  opts.add_options()("global-batch", po::value<std::string>()->value_name("B"),
                     "sequences per step (required)")(
      "seq", po::value<std::string>()->value_name("S"), "tokens per sequence (default 4096)")(
      "gpus", po::value<std::string>()->value_name("N"),
      "use N GPUs of the cluster: N / GPUs per node nodes (default: all)")(
      "fix", po::value<std::vector<std::string>>()->value_name("KEY=VALUE"),
      "pin a search dimension (e.g. parallelism.pp=16) or set any other scenario key "
      "(e.g. training.precision.gemm=fp8); repeatable")(
      "top", po::value<std::string>()->value_name("K"),
      "winners to simulate and show (default 10)")(
      "timing", "show the search's wall times (they vary run to run)")(
      "winner", po::value<std::string>()->value_name("FILE"),
      "also write the winner as a scenario file: stepsim run FILE gives its step time");
  add_search_options(opts);
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

// The search's inputs: a scenario, or a model and a cluster with the batch.
struct Base {
  bool from_scenario = false;
  long long batch = 0, seq = 4096;          // a MODEL CLUSTER plan's sizes
  std::vector<config::Override> overrides;  // --set, --fix, the sizes, --gpus
  std::set<std::string> fixed;              // the dimensions --fix pins
  std::vector<std::string> run_sets;        // what the winner's command repeats
};

void check_plan_files(const Invocation& in, bool from_scenario) {
  const auto& files = in.files;
  if (files.size() != 2 && !from_scenario)
    throw engine::UserError(
        {"<command line>", 0, 0},
        "plan needs a scenario, or a model file and a cluster file, got " +
            std::to_string(files.size()) + " file(s)" +
            (files.size() == 1 ? " (not a scenario)" : ""),
        "stepsim plan models/deepseek-v3.yaml topologies/h800-256x8-mpft.yaml "
        "--global-batch 15360, or stepsim plan scenarios/deepseek-v3-dualpipe.yaml");
  if (!in.vm.count("global-batch") && !from_scenario)
    throw engine::UserError({"--global-batch", 0, 0}, "plan needs the global batch",
                            "--global-batch 15360 (sequences per step)");
}

// --set and --fix: a dimension only by --fix, and a key given once (or with one inside it)
// whichever option gives it, or one would silently override the other.
Base overrides_of(const Invocation& in, bool from_scenario) {
  Base b;
  b.from_scenario = from_scenario;
  b.overrides = in.overrides;
  std::vector<std::pair<std::string, std::string>> given;  // key, as the user wrote it
  for (const config::Override& o : in.overrides) {
    const std::string key = join_key(o.path);
    if (is_dimension(key))
      throw engine::UserError({"--set " + o.text, 0, 0},
                              "'" + key + "' is a dimension of the search",
                              "pin it with --fix " + o.text);
    given.emplace_back(key, "--set " + o.text);
  }
  if (in.vm.count("global-batch")) given.emplace_back("training.global_batch", "--global-batch");
  if (in.vm.count("seq")) given.emplace_back("training.seq_len", "--seq");
  if (in.vm.count("gpus")) given.emplace_back("cluster.nodes", "--gpus");
  for (const std::string& f : in.texts("fix")) {
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
    if (is_dimension(key)) b.fixed.insert(key);
    b.overrides.push_back(std::move(o));
  }
  return b;
}

// The scenario the search starts from, with `with`.
spec::ScenarioSpec base_scenario(const Invocation& in, const Base& b,
                                 const std::vector<config::Override>& with) {
  if (b.from_scenario) return config::load_scenario(in.files[0], with);
  return config::parse_scenario(
      "name: plan\nmodel: " + yaml_path(in.files[0]) + "\ncluster: " + yaml_path(in.files[1]) +
          "\ntraining: {seq_len: " + std::to_string(b.seq) +
          ", global_batch: " + std::to_string(b.batch) + "}\nparallelism: {pp: 1}\n",
      "stepsim plan", with);
}

// The sizes of a scenario's plan, --gpus as whole nodes, and what the winner's command repeats:
// the batch and sequence a MODEL CLUSTER plan was given, and every override but a pinned
// dimension (the winner's value follows).
void add_sizes(const Invocation& in, Base& b) {
  if (b.from_scenario) {  // the scenario's sequence and batch, unless given
    if (in.vm.count("global-batch"))
      b.overrides.push_back(config::parse_override(
          "training.global_batch=" + in.text("global-batch"), "--global-batch"));
    if (in.vm.count("seq"))
      b.overrides.push_back(config::parse_override("training.seq_len=" + in.text("seq"), "--seq"));
  }
  if (in.vm.count("gpus")) {
    // The cluster as the overrides leave it (a --set cluster.nodes too).
    const spec::ClusterSpec cluster = base_scenario(in, b, b.overrides).cluster;
    const long long n = in.integer("gpus", 1, cluster.world_size());
    if (n % cluster.gpus_per_node != 0)
      throw engine::UserError({"--gpus", 0, 0},
                              std::to_string(n) + " GPUs are not whole nodes of " +
                                  std::to_string(cluster.gpus_per_node),
                              "use a multiple of " + std::to_string(cluster.gpus_per_node));
    b.overrides.push_back(config::parse_override(
        "cluster.nodes=" + std::to_string(n / cluster.gpus_per_node), "--gpus"));
  }
  if (!b.from_scenario)
    b.run_sets = {"training.seq_len=" + std::to_string(b.seq),
                  "training.global_batch=" + std::to_string(b.batch)};
  for (const config::Override& o : b.overrides)
    if (!is_dimension(join_key(o.path))) b.run_sets.push_back(o.text);
}

// The winner as a scenario file: the base with the winner's keys, and a header saying so.
std::string winner_scenario(const Invocation& in, const Base& b, const search::PlanResult& r,
                            const std::string& file) {
  if (r.winners == 0)
    throw engine::UserError({"--winner", 0, 0}, "the plan has no winner to write: no layout fits",
                            "see the families without a winner; give more GPUs or memory");
  const search::Candidate& best = r.simulated[0];
  const search::Layout& l = r.space.layouts[best.layout];
  std::vector<std::string> sets = b.run_sets;
  for (const std::string& s : b.from_scenario
                                  ? search::changed_arguments(r.base, l, r.space.recomputes)
                                  : search::set_arguments(l, r.space.recomputes))
    sets.push_back(s);
  const std::string layout = search::describe(l, r.space.recomputes);
  config::ScenarioBase from;
  if (b.from_scenario) {
    from.scenario = in.files[0];
  } else {
    from.model = in.files[0];
    from.cluster = in.files[1];
  }
  const std::string planned = b.from_scenario ? in.files[0] : in.files[0] + " " + in.files[1];
  return config::derived_scenario(
      from, sets, r.base.model.name + " on " + r.base.cluster.name + ", " + layout, file,
      "The winner of stepsim plan " + engine::escape_control_bytes(planned) + ": " + layout +
          ",\n" + format::fixed(best.sim.step_s, 3) + " s per step, " +
          format::fixed(best.sim.tokens_per_s_per_gpu, 0) +
          " tokens/s per GPU as simulated. Run it: stepsim run " +
          engine::escape_control_bytes(file));
}

int plan(Invocation& in) {
  const bool from_scenario =
      in.files.size() == 1 && config::detect_kind(in.files[0]) == config::FileKind::scenario;
  check_plan_files(in, from_scenario);
  const long long batch =
      in.vm.count("global-batch") ? in.integer("global-batch", 1, 1LL << 40) : 0;
  const long long seq =
      integer_option("seq", in.vm.count("seq") ? in.text("seq") : "4096", 1, 1 << 24);
  search::PlanOptions options;
  options.top =
      static_cast<int>(integer_option("top", in.vm.count("top") ? in.text("top") : "10", 1, 1000));
  for (const auto f : {0, 1})
    if (!from_scenario && config::detect_kind(in.files[f]) !=
                              (f == 0 ? config::FileKind::model : config::FileKind::cluster))
      throw engine::UserError(
          {in.files[f], 0, 0},
          std::string("this is not a ") + (f == 0 ? "model" : "cluster") + " file",
          "stepsim plan MODEL CLUSTER: the model first, then the cluster");
  Base b = overrides_of(in, from_scenario);
  b.batch = batch;
  b.seq = seq;
  add_sizes(in, b);
  if (in.vm.count("winner")) in.outputs.add("--winner", in.text("winner"));
  const spec::ScenarioSpec base = base_scenario(in, b, b.overrides);
  in.outputs.check_inputs(base.where.files);
  workload::check_words(base);
  search::SearchSpace space = search::enumerate(base, b.fixed);
  if (space.layouts.empty())
    throw engine::UserError({"--fix", 0, 0}, "no layout is left to search",
                            "tp x pp must divide the " + std::to_string(base.cluster.world_size()) +
                                " GPUs (and a pinned dp be what they leave); pin fewer dimensions");
  // Per simulation, whatever -j (so that the result does not depend on it): with -j N up to N
  // run at once.
  options.max_memory_bytes = max_memory_bytes(in.text("max-memory"));
  options.own = from_scenario;
  const search::PlanResult result = with_file(
      in.files[0], [&] { return search::run_plan(base, std::move(space), options, *in.workers); });
  if (!in.workers->root()) return 0;
  // Every layout invalid under the pinned dimensions: the pins are the user's mistake.
  const auto fixes = in.texts("fix");
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
  if (in.vm.count("winner"))
    in.outputs.stage(in.text("winner"), winner_scenario(in, b, result, in.text("winner")));
  const bool timing = in.has("timing");
  in.outputs.finish_report(
      in.output,
      in.format == OutputFormat::json ? report::plan_json(result, timing)
      : in.format == OutputFormat::csv
          ? report::plan_csv(result)
          : report::plan_text(result, timing, from_scenario ? in.files[0] : "", b.run_sets));
  return 0;
}

}  // namespace

extern const Command kPlan{
    .name = "plan",
    .synopsis = "plan MODEL CLUSTER",
    .summary =
        "search parallel layouts (or: plan SCENARIO): bound all, simulate the best, say "
        "why the rest lose",
    .help =
        "stepsim plan MODEL CLUSTER --global-batch B [options]\n"
        "stepsim plan SCENARIO [options]\n\n"
        "Searches the parallel layouts of MODEL on CLUSTER (or of a scenario's model on its "
        "cluster,\n"
        "with its precision, sequence, batch and software): enumerates dp, pp, tp, ep, "
        "sequence\n"
        "parallelism, ZeRO stage, schedule and virtual stages, micro-batch size, "
        "recomputation,\n"
        "communication SMs and stage splits; prunes by validity and memory; ranks by the "
        "roofline\n"
        "bound; simulates the best; ranks those by simulated tokens/s per GPU; and says why "
        "every\n"
        "other family of layouts lost. Under mpirun (a build with MPI) the layouts spread over\n"
        "the ranks; rank 0 writes the result.",
    .options = plan_options,
    .handler = plan,
    .ranks = true};

}  // namespace stepsim::cli
