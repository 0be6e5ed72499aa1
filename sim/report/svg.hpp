// Small helpers for the SVG the reports draw (schedule_svg.hpp, html_charts.hpp): XML escaping,
// axes (linear and log), tick steps, colour ramps and element strings. Every coordinate is
// written with fixed decimals, so the same figure gives the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepsim::report {

std::string escape(std::string_view s);  // &, <, >, " as entities

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
// Colour i of n series: the palette for up to ten, else n hues around the colour wheel.
std::string series_colour(int i, int n);

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
