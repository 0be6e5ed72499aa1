// Small helpers for the HTML pages and the SVG the reports draw (schedule_svg.hpp,
// html_charts.hpp): XML escaping, axes (linear and log), tick steps, colour ramps and element
// strings. Every coordinate is written with fixed decimals, so the same figure gives the same
// bytes.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace stepsim::report {

std::string escape(std::string_view s);  // &, <, >, " as entities
// The pages' one style sheet, a <style> element (the report's and the stress page's).
const char* page_style();
// An HTML table cell holding `v` escaped, right-aligned (numbers) unless `left`.
std::string td(const std::string& v, bool left = false);

// A share as a chart's label: "12%", "4.5%" (a decimal below 10%).
std::string chart_pct(double f);

// A tick step for a span: 1, 2 or 5 times a power of ten, about eight ticks (1 for a span that is
// not a positive number, so that tick loops end).
double nice_step(double span);

// Maps [lo, hi] to pixels [p0, p1] (p1 < p0 for a y axis).
struct LinearAxis {
  double lo = 0.0, hi = 1.0, p0 = 0.0, p1 = 1.0;
  double at(double v) const;
};
// The same on log10(v); values <= 0 map to p0.
struct LogAxis {
  double lo = 1.0, hi = 10.0, p0 = 0.0, p1 = 1.0;
  double at(double v) const;
};

// White (0) through yellow and orange to dark red (1 and above), for utilisation.
std::string heat_colour(double u);
// A qualitative palette of ten, cycled.
std::string palette(int i);
// Colour i of n ordered series (pipeline ranks): a sequential scale from dark blue through teal
// and green to yellow (viridis' stops), so that neighbours look alike and the first and the last
// do not.
std::string sequential_colour(int i, int n);

// A chart mark with its tooltip: `element` ("<rect .../>" as the svg_* helpers write it) with a
// <title> child holding `title`.
std::string titled(std::string element, std::string_view title);

// Where a chart's labels are, to place the next one where it overlaps none. A label's box is
// estimated from its text: 0.6 em a character (sans-serif digits and lower case are narrower),
// 1.2 em high around the baseline as browsers draw it, placed by its anchor, and turned by
// `angle` degrees (drawn with rotate(-angle)) about its anchor point. Boxes are compared as
// rotated rectangles (separating axes).
class LabelSpace {
 public:
  struct Label {
    double x = 0.0, y = 0.0;  // anchor point, on the baseline
    std::string_view text;
    double size = 11.0;  // font size, px
    std::string_view anchor = "start";
    double angle = 0.0;
  };
  bool free(const Label& l) const;
  void take(const Label& l);
  void take_box(double x0, double y0, double x1, double y1);  // a mark labels must keep clear of

 private:
  using Quad = std::array<std::pair<double, double>, 4>;
  static Quad quad(const Label& l);
  std::vector<Quad> taken_;
};

std::string svg_open(double width, double height);  // with a white background and the font
std::string svg_rect(double x, double y, double w, double h, std::string_view fill,
                     std::string_view extra = {});
std::string svg_line(double x1, double y1, double x2, double y2, std::string_view stroke,
                     std::string_view extra = {});
// `anchor`: start, middle or end.
std::string svg_text(double x, double y, std::string_view text, std::string_view extra = {},
                     std::string_view anchor = "start");
std::string svg_polyline(const std::vector<std::pair<double, double>>& points,
                         std::string_view stroke, std::string_view extra = {});

}  // namespace stepsim::report
