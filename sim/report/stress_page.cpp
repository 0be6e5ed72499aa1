#include "sim/report/stress_page.hpp"

#include <algorithm>
#include <cmath>

#include "sim/format/text_table.hpp"
#include "sim/report/campaign_report.hpp"
#include "sim/report/html_charts.hpp"
#include "sim/report/svg.hpp"

namespace stepsim::report {

namespace {

constexpr std::size_t kComponents = 20, kLost = 50;

}  // namespace

std::string stress_histogram_svg(const search::Summary& s) {
  constexpr double kW = 580, kH = 300, kLeft = 60, kRight = 20, kTop = 20, kBottom = 50;
  const int peak = std::max(1, *std::max_element(s.histogram.begin(), s.histogram.end()));
  const double lo = s.change.min, hi = s.change.max > lo ? s.change.max : lo + 1e-3;
  const LinearAxis x{100.0 * lo, 100.0 * hi, kLeft, kW - kRight};
  const LinearAxis y{0.0, static_cast<double>(peak), kH - kBottom, kTop};
  std::string o = svg_open(kW, kH);
  const double step = std::max(1.0, nice_step(peak));  // whole trials
  for (double v = 0; v <= peak + 1e-9; v += step) {
    o += svg_line(kLeft, y.at(v), kW - kRight, y.at(v), "#e6e6e6");
    o += svg_text(kLeft - 6, y.at(v) + 4, format::general(v), "", "end");
  }
  const double xstep = nice_step(x.hi - x.lo);
  for (double v = std::ceil(x.lo / xstep) * xstep; v <= x.hi + 1e-9; v += xstep) {
    o += svg_line(x.at(v), kH - kBottom, x.at(v), kH - kBottom + 5, "#222");
    o += svg_text(x.at(v), kH - kBottom + 18, format::general(v) + "%", "", "middle");
  }
  const double width = (hi - lo) / search::kHistogramBins;
  const std::vector<std::string> edges = histogram_edges(lo, hi, search::kHistogramBins);
  for (int b = 0; b < search::kHistogramBins; ++b) {
    if (s.histogram[b] == 0) continue;
    const double x0 = x.at(100.0 * (lo + b * width)), x1 = x.at(100.0 * (lo + (b + 1) * width));
    o += titled(
        svg_rect(x0 + 1, y.at(s.histogram[b]), x1 - x0 - 2, y.at(0) - y.at(s.histogram[b]),
                 kComputeColour),
        edges[b] + " to " + edges[b + 1] + ": " + std::to_string(s.histogram[b]) + " trials");
  }
  double label_y = kTop + 12;
  for (const auto& [v, name] :
       {std::pair{s.change.median, "median"}, std::pair{s.change.p90, "p90"}}) {
    const double at = x.at(100.0 * v);
    o += svg_line(at, kTop, at, kH - kBottom, kExposedColour, "stroke-dasharray=\"5,3\"");
    const bool right = at > kW - 140;  // near the right edge: the label to the left of its line
    o += svg_text(right ? at - 4 : at + 4, label_y, std::string(name) + " " + percent(v), "",
                  right ? "end" : "start");
    label_y += 14;
  }
  o += svg_line(kLeft, kH - kBottom, kW - kRight, kH - kBottom, "#222");
  o += svg_text((kLeft + kW - kRight) / 2, kH - 10, "step-time change against the baseline", "",
                "middle");
  o += svg_text(14, (kTop + kH - kBottom) / 2, "trials",
                "transform=\"rotate(-90 14 " + format::fixed((kTop + kH - kBottom) / 2, 1) + ")\"",
                "middle");
  return o + "</svg>\n";
}

std::string stress_components_table(const search::Summary& s, std::size_t rows) {
  std::string o =
      "<table class=\"data\"><tr><th class=\"l\">component</th><th>trials</th><th>lost</th><th>"
      "mean change</th><th>max change</th><th class=\"l\"></th></tr>\n";
  double widest = 1e-12;
  for (const auto& k : s.components) widest = std::max(widest, k.mean_change);
  for (std::size_t i = 0; i < std::min(rows, s.components.size()); ++i) {
    const search::ComponentCost& k = s.components[i];
    const bool any = k.trials > k.lost;
    const double w = any ? std::max(0.0, k.mean_change) / widest * 200.0 : 0.0;
    o += "<tr>" + td(k.component, true) + td(std::to_string(k.trials)) +
         td(std::to_string(k.lost)) + td(any ? percent(k.mean_change) : "-") +
         td(any ? percent(k.max_change) : "-") +
         "<td class=\"l\"><div style=\"width:" + format::fixed(w, 0) +
         "px;height:10px;background:" + kExposedColour + "\"></div></td></tr>\n";
  }
  return o + "</table>\n";
}

std::string stress_groups_table(const search::Summary& s) {
  std::string rows;
  for (const char* dimension : search::kGroupDimensions) {
    std::size_t in_all = 0;
    const auto shown = report::shown_groups(s, dimension, in_all);
    if (in_all < 2) continue;
    bool first = true;
    for (const search::GroupCost* g : shown) {
      const bool any = g->trials > g->lost;
      rows += "<tr>" +
              td(first ? std::string(dimension) +
                             (shown.size() < in_all
                                  ? " (" + std::to_string(shown.size()) + " costliest of " +
                                        std::to_string(in_all) + ")"
                                  : "")
                       : "",
                 true) +
              td(g->value, true) + td(std::to_string(g->trials)) + td(std::to_string(g->lost));
      for (double v : {g->mean_change, g->change.median, g->change.p90, g->change.max})
        rows += td(any ? percent(v) : "-");
      rows += "</tr>\n";
      first = false;
    }
  }
  if (rows.empty())
    return "<p class=\"note\">Every fault hit the same class and position: the campaign's own "
           "figures above.</p>\n";
  return "<table class=\"data\"><tr><th class=\"l\">by</th><th class=\"l\">position</th><th>"
         "trials</th><th>lost</th><th>mean</th><th>median</th><th>p90</th><th>max</th></tr>\n" +
         rows + "</table>\n";
}

std::string stress_page(const search::Campaign& c, const search::Summary& s) {
  const std::string title = "stepsim stress: " + c.name;
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  escape(title) + "</title>\n" + page_style() + "</head>\n<body>\n<h1>" +
                  escape(title) + "</h1>\n";
  o += "<section id=\"headline\">\n<h2>1. Headline</h2>\n<p class=\"note\">" + escape(c.scenario) +
       ": " + std::to_string(s.trials) + " trials, seed " + std::to_string(c.seed) +
       ". Each trial adds ";
  o += escape(report::draws_text(c.draws)) +
       ", drawn uniformly over the cluster's components, to the scenario's own faults and "
       "simulates the whole step.</p>\n<table class=\"data\"><tr><th class=\"l\">baseline "
       "step</th><th>survived</th><th>lost</th><th>min</th><th>median</th><th>p90</th><th>p99</"
       "th><th>max</th></tr><tr>" +
       td(format::fixed(c.baseline_s, 3) + " s", true) + td(std::to_string(s.survived)) +
       td(std::to_string(s.lost));
  for (double v : {s.change.min, s.change.median, s.change.p90, s.change.p99, s.change.max})
    o += td(s.survived ? percent(v) : "-");
  o += "</tr></table>\n</section>\n";

  o += "<section id=\"distribution\">\n<h2>2. Distribution</h2>\n";
  if (s.survived > 0)
    o += "<p class=\"note\">Step-time change of the " + std::to_string(s.survived) +
         " surviving trials in " + std::to_string(search::kHistogramBins) +
         " equal bins.</p>\n<div class=\"chart\">" + stress_histogram_svg(s) + "</div>\n";
  else
    o += "<p class=\"note\">No trial survived.</p>\n";
  o += "</section>\n";

  o += "<section id=\"components\">\n<h2>3. Components whose failure costs most</h2>\n<p "
       "class=\"note\">Per component hit: the trials that hit it, those the job did not "
       "survive, and the mean and largest change over the rest; a trial with several faults "
       "charges its change to each. " +
       std::to_string(s.components.size()) + " components were hit.</p>\n" +
       stress_components_table(s, kComponents) + "</section>\n";

  o += "<section id=\"where\">\n<h2>4. Where the faults hit</h2>\n<p class=\"note\">The "
       "change grouped by one position at a time: the class of component, the NIC's index in its "
       "node, the plane, leaf and spine of a link or switch, the node and the pipeline rank of a "
       "NIC, node or GPU. A trial counts once in each group its faults hit.</p>\n" +
       stress_groups_table(s) + "</section>\n";

  o += "<section id=\"lost\">\n<h2>5. Trials the job does not survive</h2>\n";
  if (s.lost + s.failed == 0) {
    o += "<p class=\"note\">None: every trial's faults left a route between every pair of GPUs "
         "that talk.</p>\n";
  } else {
    o += "<table class=\"data\"><tr><th>trial</th><th class=\"l\">faults</th><th "
         "class=\"l\">why</th></tr>\n";
    std::size_t shown = 0;
    for (std::size_t t = 0; t < c.outcomes.size() && shown < kLost; ++t) {
      const search::Outcome& out = c.outcomes[t];
      if (out.survived()) continue;
      ++shown;
      o += "<tr>" + td(std::to_string(t)) + td(report::faults_text(c.faults(t)), true) +
           td(out.lost.empty() ? "not simulated: " + out.error : out.lost, true) + "</tr>\n";
    }
    o += "</table>\n";
    if (static_cast<std::size_t>(s.lost + s.failed) > shown)
      o += "<p class=\"note\">The first " + std::to_string(shown) + " of " +
           std::to_string(s.lost + s.failed) + "; --json lists all.</p>\n";
  }
  return o + "</section>\n</body>\n</html>\n";
}

}  // namespace stepsim::report
