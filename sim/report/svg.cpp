#include "sim/report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/format/text_table.hpp"

namespace stepsim::report {

using format::fixed;

std::string escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '&')
      o += "&amp;";
    else if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

double nice_step(double span) {
  if (!(span > 0.0) || !std::isfinite(span)) return 1.0;
  const double raw = span / 8.0, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) return m * mag;
  return 10.0 * mag;
}

double LinearAxis::at(double v) const {
  return p0 + (v - lo) / (hi - lo) * (p1 - p0);
}

double LogAxis::at(double v) const {
  if (v <= 0.0) return p0;
  return p0 + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (p1 - p0);
}

std::string heat_colour(double u) {
  // Stops: white, pale yellow, orange, red, dark red.
  static constexpr double kStops[][3] = {
      {255, 255, 255}, {255, 237, 160}, {254, 178, 76}, {240, 59, 32}, {128, 0, 38}};
  const double x = std::clamp(u, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(x));
  const double f = x - i;
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

std::string palette(int i) {
  static constexpr const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                             "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kColours[((i % 10) + 10) % 10];
}

std::string series_colour(int i, int n) {
  if (n <= 10) return palette(i);
  return "hsl(" + fixed(360.0 * i / n, 0) + ",65%,42%)";
}

std::string svg_open(double width, double height) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fixed(width, 0) + "\" height=\"" +
         fixed(height, 0) + "\" viewBox=\"0 0 " + fixed(width, 0) + " " + fixed(height, 0) +
         "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"#fff\"/>\n";
}

std::string svg_rect(double x, double y, double w, double h, std::string_view fill,
                     std::string_view extra) {
  return "<rect x=\"" + fixed(x, 2) + "\" y=\"" + fixed(y, 2) + "\" width=\"" +
         fixed(std::max(w, 0.0), 2) + "\" height=\"" + fixed(std::max(h, 0.0), 2) + "\" fill=\"" +
         std::string(fill) + "\"" + (extra.empty() ? "" : " ") + std::string(extra) + "/>\n";
}

std::string svg_line(double x1, double y1, double x2, double y2, std::string_view stroke,
                     std::string_view extra) {
  return "<line x1=\"" + fixed(x1, 2) + "\" y1=\"" + fixed(y1, 2) + "\" x2=\"" + fixed(x2, 2) +
         "\" y2=\"" + fixed(y2, 2) + "\" stroke=\"" + std::string(stroke) + "\"" +
         (extra.empty() ? "" : " ") + std::string(extra) + "/>\n";
}

std::string svg_text(double x, double y, std::string_view text, std::string_view extra,
                     std::string_view anchor) {
  return "<text x=\"" + fixed(x, 1) + "\" y=\"" + fixed(y, 1) + "\"" +
         (anchor == "start" ? std::string() : " text-anchor=\"" + std::string(anchor) + "\"") +
         (extra.empty() ? "" : " ") + std::string(extra) + ">" + escape(text) + "</text>\n";
}

std::string svg_polyline(const std::vector<std::pair<double, double>>& points,
                         std::string_view stroke, std::string_view extra) {
  std::string o = "<polyline fill=\"none\" stroke=\"" + std::string(stroke) + "\"" +
                  (extra.empty() ? "" : " ") + std::string(extra) + " points=\"";
  for (std::size_t i = 0; i < points.size(); ++i)
    o += (i ? " " : "") + fixed(points[i].first, 1) + "," + fixed(points[i].second, 1);
  return o + "\"/>\n";
}

}  // namespace stepsim::report
