// stepsim sweep SCENARIO --vary key=v1,v2,...: the scenario simulated at every point of the
// Cartesian product of the --vary values (the first --vary outermost), one row per point. A point
// the scenario's rules refuse keeps its error in its row.
#include <boost/program_options.hpp>
#include <set>

#include "sim/analysis/work_fold.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/config/load.hpp"
#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/plan/planner.hpp"
#include "sim/workload/checks.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

struct Vary {
  std::string key;
  std::vector<std::string> values;
};

// "key=v1,v2,...": values split at commas outside brackets and braces (so that a value may be a
// YAML list such as [rmsnorm,swiglu]).
Vary parse_vary(const std::string& text) {
  const engine::SourceLoc where{"--vary " + text, 0, 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw engine::UserError(where, "--vary expects key.path=v1,v2,...",
                            "e.g. --vary parallelism.schedule=1f1b,dualpipe");
  Vary v{text.substr(0, eq), {}};
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

std::string one_line(const engine::UserError& e) {
  std::string loc = e.loc().to_string();
  return (loc.empty() ? "" : loc + ": ") + e.message();
}

std::string resource(int r) {
  return std::string(analysis::to_string(static_cast<analysis::Resource>(r)));
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
  plan::Workers workers(search_jobs(vm, jobs));
  if (files.size() != 1)
    throw engine::UserError({"<command line>", 0, 0},
                            "sweep needs one scenario file, got " + std::to_string(files.size()),
                            "stepsim sweep scenarios/deepseek-v3-dualpipe.yaml --vary "
                            "parallelism.schedule=1f1b,dualpipe");
  if (varies.empty())
    throw engine::UserError({"<command line>", 0, 0}, "sweep needs at least one --vary",
                            "e.g. --vary training.global_batch=7680,15360");

  std::vector<Vary> vs;
  double points = 1;
  for (const std::string& v : varies) {
    vs.push_back(parse_vary(v));
    for (const Vary& other : std::vector<Vary>(vs.begin(), vs.end() - 1)) {
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
  std::vector<std::vector<config::Override>> values(vs.size());
  for (std::size_t k = 0; k < vs.size(); ++k)
    for (const std::string& v : vs[k].values) {
      control.check();
      values[k].push_back(config::parse_override(vs[k].key + "=" + v, "--vary"));
      // A key or value the scenario file cannot take is the user's error, not a point's: the
      // loader blames it on the --vary itself.
      std::vector<config::Override> o = base;
      o.push_back(values[k].back());
      try {
        workload::check_words(config::load_scenario(files[0], o));
      } catch (const engine::UserError& e) {
        if (e.loc().file.rfind("--vary ", 0) == 0) throw;
      }
    }

  outputs.check_read();  // a --vary value that names a file is an input too
  const std::size_t n = static_cast<std::size_t>(points);
  // Per simulation, whatever -j (so that the rows do not depend on it): with -j N up to N run at
  // once.
  const double memory_limit = max_memory_bytes(max_memory);
  auto point = [&](std::size_t i) {  // index of each key's value, the last key fastest
    std::vector<std::size_t> at(vs.size());
    for (std::size_t k = vs.size(); k-- > 0;) {
      at[k] = i % vs[k].values.size();
      i /= vs[k].values.size();
    }
    return at;
  };
  const auto rows = workers.map(
      n,
      [&](std::size_t i, int) {
        // Overrides parsed afresh for each point: their YAML nodes are not shared between threads
        // (yaml-cpp's node memory is not thread-safe).
        std::vector<config::Override> o;
        for (const std::string& s : sets) o.push_back(config::parse_override(s));
        const auto at = point(i);
        for (std::size_t k = 0; k < vs.size(); ++k)
          o.push_back(config::parse_override(vs[k].key + "=" + vs[k].values[at[k]], "--vary"));
        try {
          const spec::ScenarioSpec spec = config::load_scenario(files[0], o);
          workload::make_plan(spec);  // the layout's rules, reported with their place
          return plan::serialize(plan::simulate(spec, &control, memory_limit));
        } catch (const engine::UserError& e) {
          plan::Simulated s;
          s.error = one_line(e);
          return plan::serialize(s);
        }
      },
      false, "sweep: simulating points");
  if (!workers.root()) return 0;
  std::vector<plan::Simulated> results;
  for (const std::string& r : rows) results.push_back(plan::parse_simulated(r));

  std::string out;
  if (vm.count("json")) {
    format::JsonWriter j;
    j.begin_array();
    for (std::size_t i = 0; i < n; ++i) {
      const plan::Simulated& s = results[i];
      const auto at = point(i);
      j.begin_object();
      j.key("point").begin_object();
      for (std::size_t k = 0; k < vs.size(); ++k) j.field(vs[k].key, vs[k].values[at[k]]);
      j.end_object();
      j.key("error");
      if (s.error.empty()) {
        j.null();
        plan::simulated_json(j, s);
        j.field("bound_s", s.bound_s).field("limited_by", resource(s.limited_by));
      } else {
        j.value(s.error);
      }
      j.end_object();
    }
    j.end_array();
    out = j.str() + "\n";
  } else if (vm.count("csv")) {
    std::vector<std::string> header;
    for (const Vary& v : vs) header.push_back(v.key);
    for (const char* h : {"step_s", "tokens_per_s_per_gpu", "mfu", "compute_s", "exposed_comm_s",
                          "bubble_s", "other_idle_s", "overlapped_comm_s", "bound_s", "limited_by",
                          "peak_memory_gb", "fits", "error"})
      header.emplace_back(h);
    format::CsvTable t(header);
    for (std::size_t i = 0; i < n; ++i) {
      const plan::Simulated& s = results[i];
      const auto at = point(i);
      t.row();
      for (std::size_t k = 0; k < vs.size(); ++k) t.text(vs[k].values[at[k]]);
      if (s.error.empty()) {
        t.number(s.step_s).number(s.tokens_per_s_per_gpu).number(s.mfu).number(s.mean.compute);
        t.number(s.mean.exposed_comm).number(s.mean.bubble).number(s.mean.other_idle);
        t.number(s.mean.overlapped_comm).number(s.bound_s).text(resource(s.limited_by));
        t.number(s.peak_memory / format::kGB).boolean(s.fits()).empty();
      } else {
        t.empty(12).text(s.error);
      }
    }
    out = t.str();
  } else {
    std::vector<std::string> header;
    for (const Vary& v : vs) header.push_back(v.key);
    for (const char* h : {"step s", "tokens/s/GPU", "MFU", "compute", "exposed", "bubble", "idle",
                          "bound s", "by", "memory GB"})
      header.emplace_back(h);
    format::TextTable t(header);
    t.left_align_from(0);
    std::string errors;
    int n_errors = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const plan::Simulated& s = results[i];
      const auto at = point(i);
      std::vector<std::string> row;
      for (std::size_t k = 0; k < vs.size(); ++k) row.push_back(vs[k].values[at[k]]);
      if (!s.error.empty()) {
        // Errors are listed under the table, so that they do not widen its columns.
        const std::string mark = "error " + std::to_string(++n_errors);
        row.push_back(mark);
        errors += "  " + mark + ": " + s.error + "\n";
        t.row(row);
        continue;
      }
      auto pct = [&](double x) { return format::fixed(100.0 * x / s.step_s, 1) + "%"; };
      for (const std::string& c :
           {format::fixed(s.step_s, 3), format::fixed(s.tokens_per_s_per_gpu, 0),
            format::fixed(100.0 * s.mfu, 1) + "%", pct(s.mean.compute), pct(s.mean.exposed_comm),
            pct(s.mean.bubble), pct(s.mean.other_idle), format::fixed(s.bound_s, 2),
            resource(s.limited_by),
            format::fixed(s.peak_memory / format::kGB, 1) + (s.fits() ? "" : " (over)")})
        row.push_back(c);
      t.row(row);
    }
    out = "sweep of " + engine::escape_control_bytes(files[0]) + ": " + std::to_string(n) +
          (n == 1 ? " point\n" : " points\n") + t.render() + errors;
  }
  // A sweep with no result writes nothing: its one message is the first point's error.
  bool any = false;
  for (const plan::Simulated& s : results) any = any || s.error.empty();
  if (!any)
    throw engine::UserError({"--vary", 0, 0},
                            "every point of the sweep failed; the first: " + results[0].error,
                            "check the --vary keys and values");
  outputs.finish_report(output, out);
  return 0;
}

}  // namespace stepsim::cli
