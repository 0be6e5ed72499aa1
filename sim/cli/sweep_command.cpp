// stepsim sweep SCENARIO --vary key=v1,v2,...: the scenario simulated at every point of the
// Cartesian product of the --vary values (the first --vary outermost), one row per point. A point
// the scenario's rules refuse keeps its error in its row.
#include <set>

#include "sim/cli/command.hpp"
#include "sim/config/load.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/sweep_report.hpp"
#include "sim/workload/checks.hpp"

namespace stepsim::cli {

namespace {

// "key=v1,v2,...": values split at commas outside brackets and braces (so that a value may be a
// YAML list such as [rmsnorm,swiglu]).
search::Vary parse_vary(const std::string& text) {
  const engine::SourceLoc where{"--vary " + text, 0, 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw engine::UserError(where, "--vary expects key.path=v1,v2,...",
                            "e.g. --vary parallelism.schedule=1f1b,dualpipe");
  search::Vary v{text.substr(0, eq), {}};
  int depth = 0;
  std::string cur;
  for (char c : text.substr(eq + 1)) {
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      v.values.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  v.values.push_back(cur);
  for (const std::string& value : v.values)
    if (value.empty())
      throw engine::UserError(where, "empty value in --vary " + v.key,
                              "separate values by single commas");
  if (depth != 0)
    throw engine::UserError(where, "unbalanced brackets in --vary " + v.key,
                            "write a list value as [a,b]");
  std::set<std::string> seen;
  for (const std::string& value : v.values)
    if (!seen.insert(value).second)
      throw engine::UserError(where, "--vary " + v.key + " lists " + value + " twice",
                              "give each value once: a point is simulated once");
  return v;
}

// The --vary options: each parsed, no key twice (nor a key and one inside it), at most 100,000
// points.
search::Sweep sweep_of(const std::vector<std::string>& varies) {
  search::Sweep sweep;
  std::vector<search::Vary>& vs = sweep.varies;
  double points = 1;
  for (const std::string& v : varies) {
    vs.push_back(parse_vary(v));
    for (const search::Vary& other : std::vector<search::Vary>(vs.begin(), vs.end() - 1)) {
      const std::string& k = vs.back().key;
      if (!config::keys_overlap(other.key, k)) continue;
      if (other.key == k)
        throw engine::UserError({"--vary " + v, 0, 0}, "'" + other.key + "' is varied twice",
                                "give all its values in one --vary");
      // A key and one inside it (parallelism and parallelism.pp): one would overwrite the other.
      const bool inside = k.size() > other.key.size();
      throw engine::UserError({"--vary " + v, 0, 0},
                              "'" + (inside ? k : other.key) + "' is varied twice: also through '" +
                                  (inside ? other.key : k) + "'",
                              "vary the key or its parent, not both");
    }
    points *= static_cast<double>(vs.back().values.size());
  }
  if (points > 100000)
    throw engine::UserError(
        {"--vary", 0, 0}, "the sweep has " + format::fixed(points, 0) + " points, more than 100000",
        "vary fewer keys or values");
  return sweep;
}

// The scenario as given must load: a broken file is the user's error, not a point's; and so is a
// key or value it cannot take (the loader blames it on the --vary itself), each checked once.
void check_values(Invocation& in, const search::Sweep& sweep) {
  const spec::ScenarioSpec scenario = config::load_scenario(in.files[0], in.overrides);
  in.outputs.check_inputs(scenario.where.files);
  workload::check_words(scenario);
  for (const search::Vary& v : sweep.varies)
    for (const std::string& value : v.values) {
      in.control.check();
      std::vector<config::Override> o = in.overrides;
      o.push_back(config::parse_override(v.key + "=" + value, "--vary"));
      try {
        workload::check_words(config::load_scenario(in.files[0], o));
      } catch (const engine::UserError& e) {
        if (e.loc().file.rfind("--vary ", 0) == 0) throw;
      }
    }
  in.outputs.check_read();  // a --vary value that names a file is an input too
}

int sweep(Invocation& in) {
  const std::vector<std::string> varies = in.texts("vary");
  if (varies.empty())
    throw engine::UserError({"<command line>", 0, 0}, "sweep needs at least one --vary",
                            "e.g. --vary training.global_batch=7680,15360");
  const search::Sweep sweep = sweep_of(varies);
  check_values(in, sweep);
  // Overrides parsed afresh for each point: their YAML nodes are not shared between threads
  // (yaml-cpp's node memory is not thread-safe).
  auto scenario_at = [&](std::size_t i) {
    std::vector<config::Override> o;
    for (const std::string& s : in.sets) o.push_back(config::parse_override(s));
    const auto at = sweep.at(i);
    for (std::size_t k = 0; k < sweep.varies.size(); ++k) {
      const search::Vary& v = sweep.varies[k];
      o.push_back(config::parse_override(v.key + "=" + v.values[at[k]], "--vary"));
    }
    return config::load_scenario(in.files[0], o);
  };
  // Per simulation, whatever -j (so that the rows do not depend on it): with -j N up to N run at
  // once.
  const std::vector<search::Simulated> results = search::run_sweep(
      sweep, scenario_at, *in.workers, &in.control, max_memory_bytes(in.text("max-memory")));
  if (!in.workers->root()) return 0;
  in.outputs.finish_report(in.output, in.format == OutputFormat::json
                                          ? report::sweep_json(sweep, results)
                                      : in.format == OutputFormat::csv
                                          ? report::sweep_csv(sweep, results)
                                          : report::sweep_text(in.files[0], sweep, results));
  return 0;
}

void sweep_options(boost::program_options::options_description& opts) {
  opts.add_options()(
      "vary",
      boost::program_options::value<std::vector<std::string>>()->value_name("KEY=V1,V2,..."),
      "a key and its values; repeatable (the first outermost)");
  add_search_options(opts);
  add_max_wall_option(opts);
  add_max_memory_option(opts);
}

}  // namespace

extern const Command kSweep{
    .name = "sweep",
    .synopsis = "sweep SCENARIO",
    .summary = "simulate a scenario over the product of --vary values, one row per point",
    .help =
        "stepsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [options]\n\n"
        "Simulates the scenario at every point of the Cartesian product of the --vary values\n"
        "(on top of any --set), one row per point: the point's values, step time, breakdown,\n"
        "roofline bound and memory. A point the scenario's rules refuse gets its error in its\n"
        "row. Under mpirun (a build with MPI) the points spread over the ranks; rank 0 writes\n"
        "the result.",
    .options = sweep_options,
    .files = {.min = 1,
              .max = 1,
              .fewer = "sweep needs one scenario file",
              .hint = "stepsim sweep scenarios/deepseek-v3-dualpipe.yaml --vary "
                      "parallelism.schedule=1f1b,dualpipe",
              .counted = true},
    .handler = sweep,
    .ranks = true};

}  // namespace stepsim::cli
