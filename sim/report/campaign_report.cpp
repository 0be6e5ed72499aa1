#include "sim/report/campaign_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

namespace {

constexpr std::size_t kShownComponents = 10, kShownLost = 10;

std::string outcome_word(const search::Outcome& o) {
  return o.survived() ? "survived" : !o.lost.empty() ? "lost" : "error";
}

}  // namespace

std::string draws_text(const std::vector<search::FaultDraw>& draws) {
  std::string out;
  for (const search::FaultDraw& d : draws) {
    const std::string value = search::value_text(d);
    out += (out.empty() ? "" : ", ") + std::to_string(d.count) + " " +
           std::string(spec::kFaultKinds.word(d.kind)) + (value.empty() ? "" : " (" + value + ")");
  }
  return out;
}

std::string percent(double change) {
  if (std::abs(change) < 5e-5) return "0.00%";  // within the rounding: no sign to show
  return (change >= 0.0 ? "+" : "") + format::fixed(100.0 * change, 2) + "%";
}

std::vector<std::string> histogram_edges(double lo, double hi, int bins) {
  const double width = (hi - lo) / bins;
  int digits = 2;
  while (digits < 9 && std::pow(10.0, -digits) > 100.0 * width) ++digits;
  std::vector<std::string> out;
  for (int b = 0; b <= bins; ++b) {
    const double x = lo + b * width;
    if (digits == 2) {
      out.push_back(percent(x));
      continue;
    }
    const std::string v = format::fixed(100.0 * x, digits);
    const bool zero = v.find_first_not_of("-0.") == std::string::npos;
    out.push_back(zero ? format::fixed(0.0, digits) + "%" : (x >= 0.0 ? "+" : "") + v + "%");
  }
  return out;
}

std::string faults_text(const std::vector<spec::FaultSpec>& faults) {
  std::string out;
  for (const spec::FaultSpec& f : faults) out += (out.empty() ? "" : "; ") + spec::fault_text(f);
  return out;
}

std::vector<const search::GroupCost*> shown_groups(const search::Summary& s,
                                                   const std::string& dimension,
                                                   std::size_t& in_all) {
  std::vector<const search::GroupCost*> out;
  for (const search::GroupCost& g : s.groups)
    if (g.dimension == dimension) out.push_back(&g);
  in_all = out.size();
  if (out.size() > 2 * kShownGroups) {
    std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
      if (a->lost != b->lost) return a->lost > b->lost;
      return a->mean_change > b->mean_change;
    });
    out.resize(kShownGroups);
  }
  return out;
}

namespace {

std::string groups_text(const search::Summary& s) {
  std::string out;
  for (const char* dimension : search::kGroupDimensions) {
    std::size_t in_all = 0;
    const auto shown = shown_groups(s, dimension, in_all);
    if (in_all < 2) continue;  // one position: the campaign's own figures
    out += out.empty() ? "\n  step-time change by where the faults hit (a trial counts once in "
                         "each group it hits)\n"
                       : "\n";
    format::TextTable t({dimension, "trials", "lost", "mean", "median", "p90", "max"});
    for (const search::GroupCost* g : shown) {
      const bool any = g->trials > g->lost;
      t.row({g->value, std::to_string(g->trials), std::to_string(g->lost),
             any ? report::percent(g->mean_change) : "-",
             any ? report::percent(g->change.median) : "-",
             any ? report::percent(g->change.p90) : "-",
             any ? report::percent(g->change.max) : "-"});
    }
    out += t.render("    ");
    if (shown.size() < in_all)
      out += "    (the " + std::to_string(shown.size()) + " costliest of " +
             std::to_string(in_all) + "; --json lists all)\n";
  }
  return out;
}

}  // namespace

std::string campaign_text(const search::Campaign& c, const search::Summary& s) {
  std::string out = "stress of " + c.scenario + " (" + c.name + "): " + std::to_string(s.trials) +
                    " trials, seed " + std::to_string(c.seed) + "\n";
  out += "  each trial: " + draws_text(c.draws) + ", drawn uniformly\n";
  out += "  baseline  step " + format::fixed(c.baseline_s, 3) + " s without them\n";
  out +=
      "  survived  " + std::to_string(s.survived) + " of " + std::to_string(s.trials) + " trials";
  if (s.lost) out += "; the job does not survive " + std::to_string(s.lost);
  if (s.failed) out += "; " + std::to_string(s.failed) + " not simulated (errors below)";
  out += "\n";
  if (s.survived > 0) {
    const search::Quantiles& q = s.change;
    out += "  step-time change  min " + percent(q.min) + "  median " + percent(q.median) +
           "  p90 " + percent(q.p90) + "  p99 " + percent(q.p99) + "  max " + percent(q.max) + "\n";
    if (s.faster) out += "  (" + std::to_string(s.faster) + " trials faster than the baseline)\n";
    if (q.max > q.min) {
      out += "\n  histogram of the change (" + std::to_string(search::kHistogramBins) + " bins)\n";
      const int peak = *std::max_element(s.histogram.begin(), s.histogram.end());
      const std::vector<std::string> edges = histogram_edges(q.min, q.max, search::kHistogramBins);
      for (int b = 0; b < search::kHistogramBins; ++b) {
        char label[96];
        std::snprintf(label, sizeof label, "  %9s .. %-9s %5d ", edges[b].c_str(),
                      edges[b + 1].c_str(), s.histogram[b]);
        out += label +
               std::string(static_cast<std::size_t>(40.0 * s.histogram[b] / peak + 0.5), '#') +
               "\n";
      }
    }
  }
  if (!s.components.empty()) {
    out += "\n  components whose failure costs most (" + std::to_string(s.components.size()) +
           " hit in all)\n";
    format::TextTable t({"component", "trials", "lost", "mean change", "max change"});
    for (std::size_t i = 0; i < std::min(kShownComponents, s.components.size()); ++i) {
      const search::ComponentCost& k = s.components[i];
      const bool any = k.trials > k.lost;
      t.row({k.component, std::to_string(k.trials), std::to_string(k.lost),
             any ? percent(k.mean_change) : "-", any ? percent(k.max_change) : "-"});
    }
    out += t.render("    ");
  }
  out += groups_text(s);
  std::size_t shown = 0;
  for (std::size_t t = 0; t < c.outcomes.size(); ++t) {
    const search::Outcome& o = c.outcomes[t];
    if (o.survived()) continue;
    if (shown == 0)
      out += "\n  trials the job does not survive" +
             std::string(s.failed ? " or not simulated" : "") + "\n";
    if (++shown > kShownLost) {
      out += "    ... and " + std::to_string(s.lost + s.failed - kShownLost) +
             " more (--json lists all)\n";
      break;
    }
    out += "    trial " + std::to_string(t) + ": " + faults_text(c.faults(t)) + ": " +
           (o.lost.empty() ? "error: " + o.error : o.lost) + "\n";
  }
  return out;
}

std::string campaign_json(const search::Campaign& c, const search::Summary& s) {
  format::JsonWriter j;
  j.begin_object();
  j.field("scenario", c.scenario).field("name", c.name);
  j.field("seed", static_cast<long long>(c.seed)).field("trials", s.trials);
  j.key("draws").begin_array();
  for (const search::FaultDraw& d : c.draws) {
    j.begin_object();
    j.field("kind", std::string(spec::kFaultKinds.word(d.kind))).field("count", d.count);
    if (!search::value_text(d).empty()) j.field("low_factor", d.low).field("high_factor", d.high);
    j.end_object();
  }
  j.end_array();
  j.field("baseline_step_s", c.baseline_s);
  j.field("survived", s.survived).field("lost", s.lost).field("errors", s.failed);
  j.field("faster", s.faster);
  j.key("change_fraction");
  if (s.survived == 0) {
    j.null();
  } else {
    j.begin_object();
    j.field("min", s.change.min).field("median", s.change.median).field("p90", s.change.p90);
    j.field("p99", s.change.p99).field("max", s.change.max);
    j.key("histogram").begin_array();
    for (int n : s.histogram) j.value(n);
    j.end_array();
    j.end_object();
  }
  j.key("components").begin_array();
  for (const search::ComponentCost& k : s.components) {
    j.begin_object();
    j.field("component", k.component).field("trials", k.trials).field("lost", k.lost);
    if (k.trials > k.lost)
      j.field("mean_change_fraction", k.mean_change).field("max_change_fraction", k.max_change);
    j.end_object();
  }
  j.end_array();
  j.key("groups").begin_array();
  for (const search::GroupCost& g : s.groups) {
    j.begin_object();
    j.field("dimension", g.dimension);
    if (g.index >= 0)
      j.field("position", g.index);
    else
      j.field("position", g.value);
    j.field("trials", g.trials).field("lost", g.lost);
    if (g.trials > g.lost) {
      j.field("mean_change_fraction", g.mean_change).field("min_change_fraction", g.change.min);
      j.field("median_change_fraction", g.change.median);
      j.field("p90_change_fraction", g.change.p90).field("p99_change_fraction", g.change.p99);
      j.field("max_change_fraction", g.change.max);
    }
    j.end_object();
  }
  j.end_array();
  j.key("trials_run").begin_array();
  for (std::size_t t = 0; t < c.outcomes.size(); ++t) {
    if (t % 256 == 0) engine::check_command();  // each trial's faults drawn again
    const search::Outcome& o = c.outcomes[t];
    j.begin_object();
    j.field("trial", static_cast<long long>(t));
    j.key("faults").begin_array();
    for (const spec::FaultSpec& f : c.faults(t)) fault_json(j, f);
    j.end_array();
    j.field("outcome", outcome_word(o));
    if (o.survived())
      j.field("step_s", o.step_s)
          .field("change_fraction", run::step_change(o.step_s, c.baseline_s));
    else
      j.field("detail", o.lost.empty() ? o.error : o.lost);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

namespace {

const std::vector<std::string> kTrialColumns = {"trial",           "faults",  "step_s",
                                                "change_fraction", "outcome", "detail"};

void trial_row(format::CsvTable& t, std::size_t trial, const std::vector<spec::FaultSpec>& faults,
               const search::Outcome& o, double baseline_s) {
  t.row().integer(static_cast<long long>(trial)).text(faults_text(faults));
  if (o.survived())
    t.number(o.step_s).number(run::step_change(o.step_s, baseline_s));
  else
    t.empty(2);
  t.text(outcome_word(o)).text(o.lost.empty() ? o.error : o.lost);
}

}  // namespace

std::string campaign_csv(const search::Campaign& c) {
  format::CsvTable t(kTrialColumns);
  for (std::size_t i = 0; i < c.outcomes.size(); ++i) {
    if (i % 256 == 0) engine::check_command();  // each trial's faults drawn again
    trial_row(t, i, c.faults(i), c.outcomes[i], c.baseline_s);
  }
  return t.str();
}

void fault_json(format::JsonWriter& j, const spec::FaultSpec& f) {
  j.begin_object();
  j.field("kind", std::string(spec::kFaultKinds.word(f.kind)));
  for (const auto& [key, value] : spec::fault_indices(f)) j.field(key, value);
  if (f.effect() == spec::FaultEffect::degrade) j.field("factor", f.factor);
  if (f.effect() == spec::FaultEffect::slowdown) j.field("slowdown", f.factor);
  j.field("text", spec::fault_text(f));
  j.end_object();
}

std::string trial_text(const search::TrialRun& t) {
  std::string out = "stress of " + t.scenario + " (" + t.name + "), trial " +
                    std::to_string(t.trial) + " of seed " + std::to_string(t.seed) + " alone\n";
  out += "  each trial: " + draws_text(t.draws) + ", drawn uniformly\n";
  out += "  faults    " + faults_text(t.faults) + "\n";
  out += "  baseline  step " + format::fixed(t.baseline_s, 3) + " s without them\n";
  const search::Outcome& o = t.outcome;
  if (o.survived())
    out += "  step      " + format::fixed(o.step_s, 3) + " s, " +
           percent(run::step_change(o.step_s, t.baseline_s)) + "\n";
  else
    out += std::string("  ") + (o.lost.empty() ? "error     " : "lost      ") +
           (o.lost.empty() ? o.error : o.lost) + "\n";
  return out;
}

std::string trial_json(const search::TrialRun& t) {
  format::JsonWriter j;
  j.begin_object();
  j.field("scenario", t.scenario).field("name", t.name);
  j.field("seed", static_cast<long long>(t.seed)).field("trial", t.trial);
  j.field("baseline_step_s", t.baseline_s);
  j.key("faults").begin_array();
  for (const spec::FaultSpec& f : t.faults) fault_json(j, f);
  j.end_array();
  const search::Outcome& o = t.outcome;
  j.field("outcome", outcome_word(o));
  if (o.survived())
    j.field("step_s", o.step_s).field("change_fraction", run::step_change(o.step_s, t.baseline_s));
  else
    j.field("detail", o.lost.empty() ? o.error : o.lost);
  j.end_object();
  return j.str() + "\n";
}

std::string trial_csv(const search::TrialRun& t) {
  format::CsvTable table(kTrialColumns);
  trial_row(table, static_cast<std::size_t>(t.trial), t.faults, t.outcome, t.baseline_s);
  return table.str();
}

}  // namespace stepsim::report
