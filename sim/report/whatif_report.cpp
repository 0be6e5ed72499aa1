#include "sim/report/whatif_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/format/csv_table.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

namespace {

std::string_view scheme_word(analysis::AttributionScheme s) {
  return s == analysis::AttributionScheme::exact ? "shapley" : "pairwise";
}

std::string percent(double part, double whole) {
  return whole > 0.0 ? format::fixed(100.0 * part / whole, 1) + " %" : "-";
}

}  // namespace

std::vector<WaterfallBar> waterfall_bars(const run::WhatIf& w) {
  const analysis::Resource limit = w.base.limited_by;
  std::vector<WaterfallBar> bars{
      {"limit",
       limit == analysis::Resource::compute ? std::string("bound set by compute")
                                            : std::string(analysis::kResources.phrase(limit)) +
                                                  " bound beyond compute (simulated below)",
       w.limit_s, limit != analysis::Resource::compute},
      {"kernels", "kernels beyond their arithmetic", w.kernels_s},
      {"schedule", "pipeline schedule: bubble, stage imbalance", w.schedule_s}};
  for (const run::MechanismTerm& t : w.terms)
    bars.push_back({std::string(run::kMechanisms.word(t.mechanism)),
                    std::string(run::kMechanisms.phrase(t.mechanism)), t.seconds, t.active});
  if (w.attribution.scheme == analysis::AttributionScheme::pairwise)
    bars.push_back({"interactions", "interactions of three or more", w.attribution.residual});
  return bars;
}

std::string whatif_text(const run::WhatIf& w) {
  std::ostringstream o;
  const int m = static_cast<int>(std::count_if(
      w.terms.begin(), w.terms.end(), [](const run::MechanismTerm& t) { return t.active; }));
  o << w.bounded.spec().name << "\n  what-if: from the roofline bound to the simulated step, "
    << (w.attribution.scheme == analysis::AttributionScheme::exact
            ? "Shapley values over "
            : "Shapley values by the pairwise scheme over ")
    << m << " mechanisms (" << w.attribution.evaluations << " steps simulated)\n";
  format::TextTable t({"", "term", "seconds", "of step"});
  t.left_align_from(0);
  t.row({"", "roofline bound (" + std::string(analysis::kResources.phrase(w.base.limited_by)) + ")",
         format::seconds(w.bound_s), percent(w.bound_s, w.step_s)});
  for (const WaterfallBar& b : waterfall_bars(w)) {
    if (b.word == "limit" && !b.active) continue;
    t.row({"+", b.active ? b.label : b.label + " (not in this scenario)",
           b.active ? format::seconds(b.seconds) : "-",
           b.active ? percent(b.seconds, w.step_s) : "-"});
  }
  t.row({"=", "simulated step", format::seconds(w.step_s), percent(w.step_s, w.step_s)});
  o << t.render();
  if (std::abs(w.scenario_bound_s - w.bound_s) > 1e-9 * w.scenario_bound_s)
    o << "  the scenario's own bound is " << format::seconds(w.scenario_bound_s)
      << ": it counts what the mechanisms above change in the step's work (routing, faults)\n";
  o << "  every mechanism off, the step is " << format::seconds(w.all_off_s)
    << ": the bound, the kernels' memory time and the schedule\n";
  if (w.attribution.scheme == analysis::AttributionScheme::pairwise)
    o << "  pairwise scheme: exact where no three mechanisms interact; their interactions are the "
         "last term\n";
  return o.str();
}

void whatif_json(format::JsonWriter& j, const run::WhatIf& w) {
  j.begin_object();
  j.field("scenario", w.bounded.spec().name);
  j.field("attribution", scheme_word(w.attribution.scheme));
  j.field("steps_simulated", w.attribution.evaluations);
  j.field("bound_s", w.bound_s);
  j.field("scenario_bound_s", w.scenario_bound_s);
  j.field("limited_by", analysis::kResources.word(w.base.limited_by));
  j.field("all_off_s", w.all_off_s);
  j.field("step_time_s", w.step_s);
  j.key("terms").begin_array();
  for (const WaterfallBar& b : waterfall_bars(w)) {
    j.begin_object();
    j.field("term", b.word);
    j.field("label", b.label);
    j.field("active", b.active);
    j.field("seconds", b.seconds);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

std::string whatif_csv(const run::WhatIf& w) {
  format::CsvTable t({"term", "label", "active", "seconds_s"});
  t.row().text("bound").text("roofline bound").boolean(true).number(w.bound_s);
  for (const WaterfallBar& b : waterfall_bars(w))
    t.row().text(b.word).text(b.label).boolean(b.active).number(b.seconds);
  t.row().text("step").text("simulated step").boolean(true).number(w.step_s);
  return t.str();
}

}  // namespace stepsim::report
