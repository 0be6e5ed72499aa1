#include "sim/report/whatif_page.hpp"

#include <algorithm>

#include "sim/format/text_table.hpp"
#include "sim/report/html_charts.hpp"
#include "sim/report/svg.hpp"
#include "sim/report/whatif_report.hpp"

namespace stepsim::report {

namespace {

struct Row {
  std::string label;
  double from = 0.0, to = 0.0;
  const char* colour = kComputeColour;
};

std::vector<Row> rows_of(const run::WhatIf& w) {
  std::vector<Row> rows{{"roofline bound", 0.0, w.bound_s, kComputeColour}};
  double at = w.bound_s;
  for (const WaterfallBar& b : waterfall_bars(w)) {
    if (!b.active) continue;
    const char* colour = b.seconds < 0.0            ? kSyncColour
                         : b.word == "schedule"     ? kBubbleColour
                         : b.word == "kernels"      ? kOtherColour
                         : b.word == "interactions" ? kOverlapColour
                                                    : kExposedColour;
    rows.push_back({b.label, at, at + b.seconds, colour});
    at += b.seconds;
  }
  rows.push_back({"simulated step", 0.0, w.step_s, kComputeColour});
  return rows;
}

}  // namespace

std::string whatif_svg(const run::WhatIf& w) {
  const std::vector<Row> rows = rows_of(w);
  constexpr double kLeft = 300, kRight = 110, kTop = 16, kRowH = 24, kW = 900;
  const double h = kTop + kRowH * static_cast<double>(rows.size()) + 40;
  double hi = 0.0;
  for (const Row& r : rows) hi = std::max({hi, r.from, r.to});
  const LinearAxis x{0.0, hi > 0.0 ? hi : 1.0, kLeft, kW - kRight};
  std::string o = svg_open(kW, h);
  const double bottom = kTop + kRowH * static_cast<double>(rows.size());
  const double step = nice_step(x.hi);
  for (double v = 0.0; v <= x.hi + 1e-12; v += step) {
    o += svg_line(x.at(v), kTop, x.at(v), bottom, "#e6e6e6");
    o += svg_text(x.at(v), bottom + 16, format::general(v), "", "middle");
  }
  o += svg_text((kLeft + kW - kRight) / 2, bottom + 34, "seconds", "", "middle");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double y = kTop + kRowH * static_cast<double>(i);
    const double x0 = x.at(std::min(r.from, r.to)), x1 = x.at(std::max(r.from, r.to));
    const double seconds = r.to - r.from;
    o += svg_text(kLeft - 8, y + 16, r.label, "", "end");
    o += titled(svg_rect(x0, y + 4, std::max(1.0, x1 - x0), kRowH - 8, r.colour),
                r.label + ": " + format::seconds(seconds));
    if (i + 1 < rows.size() && i > 0)
      o += svg_line(x.at(r.to), y + kRowH - 4, x.at(r.to), y + kRowH + 4, "#888");
    o += svg_text(
        x1 + 6, y + 16,
        (i > 0 && i + 1 < rows.size() && seconds >= 0.0 ? "+" : "") + format::seconds(seconds));
  }
  o += svg_line(kLeft, kTop, kLeft, bottom, "#222");
  return o + "</svg>\n";
}

std::string whatif_page(const run::WhatIf& w) {
  const std::string title = "stepsim whatif: " + w.bounded.spec().name;
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  escape(title) + "</title>\n" + page_style() + "</head>\n<body>\n<h1>" +
                  escape(title) + "</h1>\n";
  o += "<section id=\"waterfall\">\n<h2>From the bound to the step</h2>\n<p class=\"note\">The "
       "step simulated again with mechanisms switched off; each is credited its Shapley value " +
       std::string(w.attribution.scheme == analysis::AttributionScheme::exact
                       ? "over every subset of them"
                       : "by the pairwise scheme (exact where no three interact)") +
       ", from " + std::to_string(w.attribution.evaluations) +
       " simulated steps. With every mechanism off the step is " + format::seconds(w.all_off_s) +
       ": the bound, the kernels' memory time and the pipeline schedule.</p>\n<div "
       "class=\"chart\" style=\"width:auto;display:inline-block\">" +
       whatif_svg(w) + "</div>\n";
  o += "<table class=\"data\"><tr><th class=\"l\">term</th><th>seconds</th><th>of step</th></tr>\n";
  const auto row = [&](const std::string& label, double s) {
    o += "<tr>" + td(label, true) + td(format::seconds(s)) +
         td(w.step_s > 0.0 ? format::fixed(100.0 * s / w.step_s, 1) + " %" : "-") + "</tr>\n";
  };
  row("roofline bound", w.bound_s);
  for (const WaterfallBar& b : waterfall_bars(w))
    if (b.active) row(b.label, b.seconds);
  row("simulated step", w.step_s);
  return o + "</table>\n</section>\n</body>\n</html>\n";
}

}  // namespace stepsim::report
