// stepsim sweep SCENARIO --vary key=v1,v2,...: the scenario simulated at every point of the
// Cartesian product of the --vary values (the first --vary outermost), one row per point. A point
// the scenario's rules refuse keeps its error in its row.
#include <boost/program_options.hpp>
#include <set>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/sweep_report.hpp"
#include "sim/workload/checks.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

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

}  // namespace

int sweep_command(const Args& args) {
  po::options_description opts(
      "stepsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [options]\n\n"
      "Simulates the scenario at every point of the Cartesian product of the --vary values\n"
      "(on top of any --set), one row per point: the point's values, step time, breakdown,\n"
      "roofline bound and memory. A point the scenario's rules refuse gets its error in its\n"
      "row. Under mpirun (a build with MPI) the points spread over the ranks; rank 0 writes\n"
      "the result.\n\nOptions");
  std::vector<std::string> files, sets, varies;
  std::string output, max_wall, max_memory = kDefaultMaxMemory, jobs = "1";
  add_common_options(opts, sets);
  opts.add_options()("vary", po::value(&varies)->value_name("KEY=V1,V2,..."),
                     "a key and its values; repeatable (the first outermost)");
  add_search_options(opts, jobs, output);
  add_max_wall_option(opts, max_wall);
  add_max_memory_option(opts, max_memory);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  run::Workers workers(search_jobs(vm, jobs));
  if (files.size() != 1)
    throw engine::UserError({"<command line>", 0, 0},
                            "sweep needs one scenario file, got " + std::to_string(files.size()),
                            "stepsim sweep scenarios/deepseek-v3-dualpipe.yaml --vary "
                            "parallelism.schedule=1f1b,dualpipe");
  if (varies.empty())
    throw engine::UserError({"<command line>", 0, 0}, "sweep needs at least one --vary",
                            "e.g. --vary training.global_batch=7680,15360");

  std::vector<search::Vary> vs;
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
  const std::vector<config::Override> base = parse_overrides(sets);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  const engine::RunControl control = run_control(vm, max_wall);
  outputs.set_control(&control);
  workers.set_control(&control);
  // The scenario as given must load: a broken file is the user's error, not a point's.
  const spec::ScenarioSpec scenario = config::load_scenario(files[0], base);
  outputs.check_inputs(scenario.where.files);
  workload::check_words(scenario);
  // The value of each key, as an override, checked once.
  for (std::size_t k = 0; k < vs.size(); ++k)
    for (const std::string& v : vs[k].values) {
      control.check();
      // A key or value the scenario file cannot take is the user's error, not a point's: the
      // loader blames it on the --vary itself.
      std::vector<config::Override> o = base;
      o.push_back(config::parse_override(vs[k].key + "=" + v, "--vary"));
      try {
        workload::check_words(config::load_scenario(files[0], o));
      } catch (const engine::UserError& e) {
        if (e.loc().file.rfind("--vary ", 0) == 0) throw;
      }
    }

  outputs.check_read();  // a --vary value that names a file is an input too
  search::Sweep sweep{vs};
  // Overrides parsed afresh for each point: their YAML nodes are not shared between threads
  // (yaml-cpp's node memory is not thread-safe).
  auto scenario_at = [&](std::size_t i) {
    std::vector<config::Override> o;
    for (const std::string& s : sets) o.push_back(config::parse_override(s));
    const auto at = sweep.at(i);
    for (std::size_t k = 0; k < vs.size(); ++k)
      o.push_back(config::parse_override(vs[k].key + "=" + vs[k].values[at[k]], "--vary"));
    return config::load_scenario(files[0], o);
  };
  // Per simulation, whatever -j (so that the rows do not depend on it): with -j N up to N run at
  // once.
  const std::vector<search::Simulated> results =
      search::run_sweep(sweep, scenario_at, workers, &control, max_memory_bytes(max_memory));
  if (!workers.root()) return 0;
  const std::string out = vm.count("json")  ? report::sweep_json(sweep, results)
                          : vm.count("csv") ? report::sweep_csv(sweep, results)
                                            : report::sweep_text(files[0], sweep, results);
  outputs.finish_report(output, out);
  return 0;
}

}  // namespace stepsim::cli
