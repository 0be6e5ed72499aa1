#include "sim/report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/engine/check.hpp"
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

std::string td(const std::string& v, bool left) {
  return std::string(left ? "<td class=\"l\">" : "<td>") + escape(v) + "</td>";
}

std::string chart_pct(double f) {
  return format::fixed(100.0 * f, f < 0.1 ? 1 : 0) + "%";
}

const char* page_style() {
  static constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;font-size:14px;color:#222;margin:24px auto;max-width:1280px;padding:0 12px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:19px;border-bottom:3px solid #2f4b7c;padding-bottom:3px;margin:28px 0 10px}
h3{font-size:15px;margin:14px 0 6px}
p.note{color:#555;margin:4px 0 10px;max-width:1100px}
.cards{display:flex;flex-wrap:wrap;gap:14px}
.card{border:1px solid #ccc;border-radius:6px;padding:10px 14px;width:360px;background:#fafafa}
.card .name{font-weight:bold;margin-bottom:6px}
.badge{display:inline-block;padding:3px 8px;border-radius:4px;color:#fff;font-weight:bold;font-size:13px}
.bound-compute{background:#2e7d32}.bound-comm{background:#c62828}.bound-hbm{background:#ef6c00}
.big{font-size:26px;font-weight:bold;margin:6px 0 2px}
.card table td{padding:1px 6px 1px 0}
.meter{height:8px;background:#e6e6e6;border-radius:4px;width:100%;margin-top:2px}
.meter div{height:8px;border-radius:4px}
table.data{border-collapse:collapse;margin:4px 0 12px;font-size:13px}
table.data th,table.data td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}
table.data td.l{white-space:normal}
table.data th{background:#f0f0f0}
table.data td.l,table.data th.l{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:16px}
.chart{border:1px solid #ddd;padding:6px;width:590px}
.chart table.data{font-size:12px}
.chart table.data th,.chart table.data td{padding:2px 5px}
.scroll{overflow-x:auto}
svg{display:block}
@media print{section{break-before:page}section#headline{break-before:auto}.scroll{overflow:visible}}
</style>
)";
  return kStyle;
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

namespace {

using Rgb = std::array<double, 3>;

// The colour at x in [0, 1] along five evenly spaced stops, interpolated linearly in RGB.
std::string ramp(const Rgb (&stops)[5], double x) {
  const double at = std::clamp(x, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(at));
  const double f = at - i;
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<int>(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c])));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

}  // namespace

std::string heat_colour(double u) {
  // White, pale yellow, orange, red, dark red.
  static constexpr Rgb kStops[5] = {
      {255, 255, 255}, {255, 237, 160}, {254, 178, 76}, {240, 59, 32}, {128, 0, 38}};
  return ramp(kStops, u);
}

std::string palette(int i) {
  static constexpr const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                             "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kColours[((i % 10) + 10) % 10];
}

std::string sequential_colour(int i, int n) {
  // viridis (matplotlib) at 0, 1/4, 1/2 and 3/4; its end, (253, 231, 37), darkened to
  // (200, 210, 40): too pale on white.
  static constexpr Rgb kStops[5] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {200, 210, 40}};
  return ramp(kStops, n > 1 ? static_cast<double>(std::clamp(i, 0, n - 1)) / (n - 1) : 0.0);
}

std::string titled(std::string element, std::string_view title) {
  const auto tag_end = element.find_first_of(" >");
  const std::string tag = element.substr(1, tag_end - 1);
  const auto close = element.rfind("/>");
  STEPSIM_CHECK(element.front() == '<' && close != std::string::npos,
                "titled: not an empty element");
  return element.substr(0, close) + "><title>" + escape(title) + "</title></" + tag + ">" +
         element.substr(close + 2);
}

LabelSpace::Quad LabelSpace::quad(const Label& l) {
  const double w = 0.6 * l.size * static_cast<double>(l.text.size()), up = 0.95 * l.size,
               down = 0.25 * l.size;
  const double x0 = l.anchor == "end" ? -w : l.anchor == "middle" ? -w / 2 : 0.0;
  const double a = -l.angle * 3.14159265358979 / 180.0, c = std::cos(a), s = std::sin(a);
  Quad q;
  const std::pair<double, double> corners[] = {
      {x0, -up}, {x0 + w, -up}, {x0 + w, down}, {x0, down}};
  for (int k = 0; k < 4; ++k) {
    const auto [dx, dy] = corners[k];
    q[k] = {l.x + dx * c - dy * s, l.y + dx * s + dy * c};
  }
  return q;
}

namespace {

bool separated(const std::array<std::pair<double, double>, 4>& a,
               const std::array<std::pair<double, double>, 4>& b) {
  for (const auto* poly : {&a, &b})
    for (int i = 0; i < 4; ++i) {
      const auto p = (*poly)[i], q = (*poly)[(i + 1) % 4];
      const double nx = q.second - p.second, ny = p.first - q.first;
      double lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
      for (const auto& [x, y] : a) {
        lo_a = std::min(lo_a, x * nx + y * ny);
        hi_a = std::max(hi_a, x * nx + y * ny);
      }
      for (const auto& [x, y] : b) {
        lo_b = std::min(lo_b, x * nx + y * ny);
        hi_b = std::max(hi_b, x * nx + y * ny);
      }
      if (hi_a <= lo_b || hi_b <= lo_a) return true;
    }
  return false;
}

}  // namespace

bool LabelSpace::free(const Label& l) const {
  const Quad q = quad(l);
  return std::all_of(taken_.begin(), taken_.end(), [&](const Quad& t) { return separated(q, t); });
}

void LabelSpace::take(const Label& l) {
  taken_.push_back(quad(l));
}

void LabelSpace::take_box(double x0, double y0, double x1, double y1) {
  taken_.push_back(Quad{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}});
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
