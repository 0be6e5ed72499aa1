#include "sim/search/sweep.hpp"

namespace stepsim::search {

namespace {

std::string one_line(const engine::UserError& e) {
  std::string loc = e.loc().to_string();
  return (loc.empty() ? "" : loc + ": ") + e.message();
}

}  // namespace

std::size_t Sweep::points() const {
  std::size_t n = 1;
  for (const Vary& v : varies) n *= v.values.size();
  return n;
}

std::vector<std::size_t> Sweep::at(std::size_t i) const {
  std::vector<std::size_t> at(varies.size());
  for (std::size_t k = varies.size(); k-- > 0;) {
    at[k] = i % varies[k].values.size();
    i /= varies[k].values.size();
  }
  return at;
}

std::vector<Simulated> run_sweep(const Sweep& sweep, const PointScenario& scenario,
                                 run::Workers& workers, const engine::RunControl* control,
                                 double max_memory) {
  const auto rows = workers.map(
      sweep.points(),
      [&](std::size_t i, int) {
        try {
          const spec::ScenarioSpec spec = scenario(i);
          workload::make_plan(spec);  // the layout's rules, reported with their place
          return serialize(simulate(spec, control, max_memory));
        } catch (const engine::UserError& e) {
          Simulated s;
          s.error = one_line(e);
          return serialize(s);
        }
      },
      false, "sweep: simulating points");
  std::vector<Simulated> results;
  if (!workers.root()) return results;
  for (const std::string& r : rows) results.push_back(parse_simulated(r));
  // A sweep with no result writes nothing: its one message is the first point's error.
  bool any = false;
  for (const Simulated& s : results) any = any || s.error.empty();
  if (!any)
    throw engine::UserError({"--vary", 0, 0},
                            "every point of the sweep failed; the first: " + results[0].error,
                            "check the --vary keys and values");
  return results;
}

}  // namespace stepsim::search
