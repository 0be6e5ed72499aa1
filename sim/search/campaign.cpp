#include "sim/search/campaign.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include "sim/engine/check.hpp"
#include "sim/format/text_table.hpp"
#include "sim/hw/topology.hpp"
#include "sim/run/pipeline.hpp"
#include "sim/run/workers.hpp"
#include "sim/search/wire.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::search {

std::string serialize(const Outcome& o) {
  std::string out;
  wire::put(out, o.step_s);
  return out + (o.lost.empty() ? "E" + o.error : "L" + o.lost);
}

Outcome parse_outcome(const std::string& s) {
  Outcome o;
  wire::Reader in(s);
  o.step_s = in.number<double>();
  const std::string rest = in.rest();
  STEPSIM_CHECK(!rest.empty(), "malformed trial outcome");
  (rest[0] == 'L' ? o.lost : o.error) = rest.substr(1);
  return o;
}

Outcome run_trial(const spec::ScenarioSpec& scenario, const std::vector<spec::FaultSpec>& faults,
                  const run::Limits& limits, const engine::RunControl* control) {
  spec::ScenarioSpec s = scenario;
  s.cluster.faults.insert(s.cluster.faults.end(), faults.begin(), faults.end());
  return outcome([&] { return run::simulate_step(s, limits, control).metrics.step_s; });
}

Outcome outcome(const std::function<double()>& step) {
  Outcome o;
  try {
    o.step_s = step();
  } catch (const run::OverMemory& e) {
    o.error = "its simulation would need about " + format::gib(e.need()) +
              " of memory, more than --max-memory allows";
  } catch (const hw::Unreachable& e) {
    o.lost = e.message();
  } catch (const engine::UserError& e) {
    o.error = e.message();
  } catch (const engine::TimeOverflow& e) {
    o.error = e.what();
  }
  return o;
}

double nearest_rank(const std::vector<double>& sorted, double q) {
  STEPSIM_CHECK(!sorted.empty(), "quantile of nothing");
  const double n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n - 1e-9)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

namespace {

// The groups a fault falls in: (dimension index in kGroupDimensions, position, words).
struct Place {
  int dimension, index;
  std::string value;
  auto operator<=>(const Place& o) const {
    return std::tie(dimension, index, value) <=> std::tie(o.dimension, o.index, o.value);
  }
  bool operator==(const Place& o) const = default;
};

void places(const spec::FaultSpec& f, const Campaign& c, std::vector<Place>& out) {
  using spec::FaultTarget;
  static constexpr const char* kClass[] = {"NIC", "link", "switch", "node", "NVLink", "GPU"};
  std::string cls = kClass[static_cast<int>(f.target())];
  if (f.target() == FaultTarget::fabric_switch) cls = f.leaf >= 0 ? "leaf switch" : "spine switch";
  out.push_back({0, -1, cls});
  auto at = [&](int d, int i) { out.push_back({d, i, std::to_string(i)}); };
  if (f.target() == FaultTarget::nic) at(1, f.nic);
  if (f.target() == FaultTarget::link || f.target() == FaultTarget::fabric_switch) at(2, f.plane);
  if (f.leaf >= 0) at(3, f.leaf);
  if (f.spine >= 0) at(4, f.spine);
  int first = -1, last = -1;  // the GPUs hit
  if (f.target() == FaultTarget::nic || f.target() == FaultTarget::node) {
    first = f.node * c.gpus_per_node;
    last = first + c.gpus_per_node - 1;
  } else if (f.target() == FaultTarget::nvlink || f.target() == FaultTarget::gpu) {
    first = last = f.gpu;
  }
  if (first < 0) return;
  at(5, first / c.gpus_per_node);
  for (int r = first / c.gpus_per_rank; r <= last / c.gpus_per_rank; ++r) at(6, r);
}

}  // namespace

Summary summarize(const Campaign& c) {
  Summary s;
  s.trials = static_cast<int>(c.outcomes.size());
  std::vector<double> changes;
  struct Acc {
    int trials = 0, lost = 0, survived = 0;
    double sum = 0.0, max = -INFINITY;
  };
  std::map<std::string, Acc> by;
  std::map<Place, std::vector<double>> group_changes;  // survived trials' changes
  std::map<Place, std::pair<int, int>> group_counts;   // trials, lost
  for (std::size_t t = 0; t < c.outcomes.size(); ++t) {
    const Outcome& o = c.outcomes[t];
    double change = 0.0;
    if (o.survived()) {
      ++s.survived;
      change = run::step_change(o.step_s, c.baseline_s);
      changes.push_back(change);
      if (change < 0.0) ++s.faster;
    } else if (!o.lost.empty()) {
      ++s.lost;
    } else {
      ++s.failed;
      continue;
    }
    if (t % 256 == 0) engine::check_command();  // drawing the faults again: a signal, --max-wall
    const std::vector<spec::FaultSpec> faults = c.faults(t);
    std::vector<Place> where;
    for (const spec::FaultSpec& f : faults) places(f, c, where);
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());
    for (const Place& p : where) {
      auto& [trials, lost] = group_counts[p];
      ++trials;
      if (o.survived())
        group_changes[p].push_back(change);
      else
        ++lost;
    }
    std::vector<std::string> hit;
    for (const spec::FaultSpec& f : faults) hit.push_back(spec::fault_place(f));
    std::sort(hit.begin(), hit.end());
    hit.erase(std::unique(hit.begin(), hit.end()), hit.end());
    for (const std::string& h : hit) {
      Acc& a = by[h];
      ++a.trials;
      if (!o.survived()) {
        ++a.lost;
        continue;
      }
      ++a.survived;
      a.sum += change;
      a.max = std::max(a.max, change);
    }
  }
  for (const auto& [name, a] : by)
    s.components.push_back(
        {name, a.trials, a.lost, a.survived ? a.sum / a.survived : 0.0, a.survived ? a.max : 0.0});
  std::stable_sort(s.components.begin(), s.components.end(),
                   [](const ComponentCost& a, const ComponentCost& b) {
                     if (a.lost != b.lost) return a.lost > b.lost;
                     return a.mean_change > b.mean_change;
                   });
  for (const auto& [p, counts] : group_counts) {
    GroupCost g;
    g.dimension = kGroupDimensions[p.dimension];
    g.index = p.index;
    g.value = p.value;
    g.trials = counts.first;
    g.lost = counts.second;
    std::vector<double>& x = group_changes[p];
    if (!x.empty()) {
      std::sort(x.begin(), x.end());
      double sum = 0.0;
      for (double v : x) sum += v;
      g.mean_change = sum / static_cast<double>(x.size());
      g.change = {x.front(), nearest_rank(x, 0.5), nearest_rank(x, 0.9), nearest_rank(x, 0.99),
                  x.back()};
    }
    s.groups.push_back(std::move(g));
  }
  s.histogram.assign(kHistogramBins, 0);
  if (changes.empty()) return s;
  std::sort(changes.begin(), changes.end());
  s.change = {changes.front(), nearest_rank(changes, 0.5), nearest_rank(changes, 0.9),
              nearest_rank(changes, 0.99), changes.back()};
  const double span = s.change.max - s.change.min;
  for (double x : changes) {
    const int bin = span > 0.0 ? static_cast<int>((x - s.change.min) / span * kHistogramBins) : 0;
    ++s.histogram[std::min(bin, kHistogramBins - 1)];
  }
  return s;
}

namespace {

// Item 0 the baseline, item t + 1 the trial of `faults(t)`, over the workers; on rank 0, the
// baseline's step and the trials' outcomes (empty on the others).
std::vector<Outcome> run_trials(
    const std::string& file, const spec::ScenarioSpec& scenario, const CampaignRequest& request,
    std::size_t trials, const std::function<std::vector<spec::FaultSpec>(std::size_t)>& faults,
    run::Workers& workers, const engine::RunControl* control) {
  // One simulation per thread at a time: the baseline is refused up front when it would not fit;
  // the faults of a trial may split symmetry classes, so each trial is checked on its own.
  run::Limits limits;
  limits.max_memory = request.max_memory;
  limits.memory_what = file + ": simulating this step";
  const run::Prepared baseline_step = run::prepare(scenario, limits);
  const std::vector<std::string> results = workers.map(
      trials + 1,
      [&](std::size_t i, int) {
        if (i == 0)
          return serialize(
              outcome([&] { return run::complete(baseline_step, control).metrics.step_s; }));
        return serialize(run_trial(scenario, faults(i - 1), limits, control));
      },
      false, "stress: simulating trials of " + file);
  if (!workers.root()) return {};
  std::vector<Outcome> out;
  for (const std::string& r : results) out.push_back(parse_outcome(r));
  if (!out[0].survived())
    throw engine::UserError({file, 0, 0},
                            "the step does not simulate without the drawn faults: " +
                                (out[0].lost.empty() ? out[0].error : out[0].lost),
                            "stepsim run " + file + " shows the error on its own");
  return out;
}

// What a campaign holds beyond one step's simulation, refused up front when over --max-memory:
// per trial its outcome (and its exchange between the workers), its change in the summary of
// each group its faults hit (at most 7 places a fault, and no more than the groups there are),
// and, where an output lists every trial's faults, their text (about 100 bytes a fault in JSON).
// The faults themselves are drawn one trial at a time and not kept.
void check_campaign_memory(const std::string& file, const spec::ClusterSpec& cluster,
                           int gpus_per_rank, const CampaignRequest& request) {
  double per_trial = 0.0;
  for (const FaultDraw& d : request.draws) per_trial += d.count;
  const spec::FabricShape f = spec::fabric_shape(cluster);
  const double groups = 7.0 + cluster.gpus_per_node + f.planes + f.leaves_per_plane + f.spines() +
                        cluster.nodes + static_cast<double>(cluster.world_size()) / gpus_per_rank;
  const double places = std::min(7.0 * per_trial, groups);
  const double bytes = request.trials * (2.0 * sizeof(Outcome) + 64.0 + sizeof(double) * places +
                                         (request.lists_every_trial ? 100.0 * per_trial : 0.0));
  if (request.max_memory > 0.0 && bytes > request.max_memory)
    throw engine::UserError(
        {file, 0, 0},
        std::to_string(request.trials) + " trials of " + format::fixed(per_trial, 0) +
            " faults each need about " + format::fixed(bytes / 1e9, 1) + " GB for their outcomes" +
            (request.lists_every_trial ? ", summary and the lists of every trial's faults"
                                       : " and summary") +
            ", more than --max-memory " + format::fixed(request.max_memory / 1e9, 1) + " GB",
        std::string(request.lists_every_trial ? "drop --json or --csv, or " : "") +
            "draw fewer trials or fewer faults per trial, or raise --max-memory");
}

// The request's draws, checked against the cluster.
Drawn drawn(const std::string& file, const spec::ScenarioSpec& scenario,
            const CampaignRequest& request) {
  for (const FaultDraw& d : request.draws) check_draw(d, scenario.cluster);
  return {file, scenario.name, request.draws, request.seed};
}

}  // namespace

std::optional<Campaign> run_campaign(const std::string& file, const spec::ScenarioSpec& scenario,
                                     const CampaignRequest& request, run::Workers& workers,
                                     const engine::RunControl* control) {
  Campaign c;
  static_cast<Drawn&>(c) = drawn(file, scenario, request);
  c.gpus_per_node = scenario.cluster.gpus_per_node;
  c.gpus_per_rank = workload::make_plan(scenario).gpus_per_rank();
  check_campaign_memory(file, scenario.cluster, c.gpus_per_rank, request);
  c.faults = [draws = request.draws, cluster = scenario.cluster,
              seed = request.seed](std::size_t t) {
    return draw_trial(draws, cluster, static_cast<long long>(t), seed);
  };
  std::vector<Outcome> outcomes =
      run_trials(file, scenario, request, static_cast<std::size_t>(request.trials), c.faults,
                 workers, control);
  if (!workers.root()) return std::nullopt;
  c.baseline_s = outcomes[0].step_s;
  c.outcomes.assign(outcomes.begin() + 1, outcomes.end());
  return c;
}

std::optional<TrialRun> run_one_trial(const std::string& file, const spec::ScenarioSpec& scenario,
                                      const CampaignRequest& request, int trial,
                                      run::Workers& workers, const engine::RunControl* control) {
  TrialRun r;
  static_cast<Drawn&>(r) = drawn(file, scenario, request);
  r.trial = trial;
  r.faults = draw_trial(request.draws, scenario.cluster, trial, request.seed);
  const std::vector<Outcome> outcomes = run_trials(
      file, scenario, request, 1, [&](std::size_t) { return r.faults; }, workers, control);
  if (!workers.root()) return std::nullopt;
  r.baseline_s = outcomes[0].step_s;
  r.outcome = outcomes[1];
  return r;
}

}  // namespace stepsim::search
