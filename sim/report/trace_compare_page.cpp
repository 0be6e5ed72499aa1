#include "sim/report/trace_compare_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/format/text_table.hpp"
#include "sim/report/svg.hpp"

namespace stepsim::report {

namespace {

constexpr double kLabelW = 190.0, kPlotW = 2.0 * kCompareBins, kLaneH = 16.0, kGap = 4.0;

// A class's colour: a hue per group (GEMMs blue, attention green, memory-bound orange,
// communication red, copies and fills grey), each detail of the group a lighter shade of it.
std::string class_colour(const std::string& label, int shade) {
  struct Hue {
    const char* group;
    int r, g, b;
  };
  static constexpr Hue kHues[] = {{"gemm", 47, 94, 160},          {"attention", 56, 142, 60},
                                  {"memory-bound", 230, 126, 34}, {"communication", 192, 57, 43},
                                  {"memcpy", 110, 110, 110},      {"memset", 150, 150, 150}};
  Hue h{"", 120, 90, 160};
  for (const Hue& k : kHues)
    if (label.rfind(k.group, 0) == 0) h = k;
  const double white = std::min(0.7, 0.18 * shade);  // mixed with white
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(h.r + (255 - h.r) * white),
                static_cast<int>(h.g + (255 - h.g) * white),
                static_cast<int>(h.b + (255 - h.b) * white));
  return buf;
}

std::string stream_name(long long tid) {
  switch (tid) {  // the stream ids stepsim's traces use (kineto_trace.hpp)
    case 7:
      return "stream 7 (compute)";
    case 13:
      return "stream 13 (comm)";
    case 17:
      return "stream 17 (p2p)";
    case 21:
      return "stream 21 (dp)";
    default:
      return "stream " + std::to_string(tid);
  }
}

// The lanes of one side, from y; returns the y below them.
double lanes(std::string& svg, const profile::BinnedStreams& b, const std::string& side, double y,
             const std::map<std::string, std::string>& colour) {
  const double bin_w = kPlotW / std::max(b.bins, 1);
  const double bin_s = (b.end_us - b.start_us) * 1e-6 / std::max(b.bins, 1);
  for (const profile::StreamBins& s : b.streams) {
    svg += svg_text(kLabelW - 6, y + kLaneH - 4, side + " " + stream_name(s.stream),
                    "font-size=\"11\"", "end");
    svg += svg_rect(kLabelW, y, kPlotW, kLaneH, "#f4f4f4");
    for (std::size_t i = 0; i < s.top.size();) {
      std::size_t j = i;
      double busy = 0.0;
      while (j < s.top.size() && s.top[j] == s.top[i]) busy += s.busy[j++];
      if (s.top[i] >= 0) {
        const std::string& label = b.labels[static_cast<std::size_t>(s.top[i])];
        const double share = busy / static_cast<double>(j - i);
        const std::string title = label + ": " + format::seconds(static_cast<double>(i) * bin_s) +
                                  " to " + format::seconds(static_cast<double>(j) * bin_s) +
                                  ", stream busy " + format::fixed(100.0 * share, 0) + " %";
        svg += titled(svg_rect(kLabelW + static_cast<double>(i) * bin_w, y,
                               static_cast<double>(j - i) * bin_w, kLaneH, colour.at(label),
                               "fill-opacity=\"" + format::fixed(0.35 + 0.65 * share, 2) + "\""),
                      title);
      }
      i = j;
    }
    y += kLaneH + kGap;
  }
  return y;
}

std::string figure(const ProfileComparison& pc) {
  // Every class either side draws, in the table's order, then those only the bins have.
  std::map<std::string, int> order;
  for (const profile::CompareRow& r : pc.c.classes)
    order.emplace(r.label, static_cast<int>(order.size()));
  for (const auto* b : {&pc.measured_bins, &pc.simulated_bins})
    for (const std::string& l : b->labels) order.emplace(l, static_cast<int>(order.size()));
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [label, i] : order) ordered.push_back({i, label});
  std::sort(ordered.begin(), ordered.end());
  std::map<std::string, std::string> colour;
  std::map<std::string, int> shades;  // per group's first word: shades given so far
  for (const auto& [i, label] : ordered) {
    const std::string group = label.substr(0, label.find(' '));
    colour[label] = class_colour(label, shades[group]++);
  }
  const std::size_t n = pc.measured_bins.streams.size() + pc.simulated_bins.streams.size();
  const double legend_rows = std::ceil(static_cast<double>(ordered.size()) / 4.0);
  const double height =
      30.0 + static_cast<double>(n) * (kLaneH + kGap) + 24.0 + 40.0 + legend_rows * 16.0;
  std::string svg = svg_open(kLabelW + kPlotW + 20.0, height);
  double y = 10.0;
  y = lanes(svg, pc.measured_bins, "profile", y, colour);
  y += 8.0;
  y = lanes(svg, pc.simulated_bins, "simulated", y, colour);
  // The time axis, shared: seconds from each side's first GPU event.
  const double span_s = (pc.measured_bins.end_us - pc.measured_bins.start_us) * 1e-6;
  const LinearAxis x{0.0, span_s, kLabelW, kLabelW + kPlotW};
  const double step = nice_step(span_s);
  svg += svg_line(kLabelW, y, kLabelW + kPlotW, y, "#555");
  for (double t = 0.0; t <= span_s + 1e-12; t += step) {
    svg += svg_line(x.at(t), y, x.at(t), y + 4, "#555");
    svg += svg_text(x.at(t), y + 16, format::seconds(t), "font-size=\"10\"", "middle");
  }
  y += 34.0;
  int i = 0;
  for (const auto& [c, label] : ordered) {
    const double lx = kLabelW + static_cast<double>(i % 4) * (kPlotW / 4.0);
    const double ly = y + static_cast<double>(i / 4) * 16.0;
    svg += svg_rect(lx, ly - 9, 10, 10, colour.at(label));
    svg += svg_text(lx + 14, ly, label, "font-size=\"11\"");
    ++i;
  }
  return svg + "</svg>\n";
}

std::string class_table(const profile::Comparison& c) {
  std::string t =
      "<table><tr><th>class</th><th>measured</th><th>simulated</th><th>ratio</th></tr>\n";
  for (const profile::CompareRow& r : c.classes) {
    const std::string ratio = ratio_text(r);
    t += "<tr>" + td(r.label, true) + td(r.measured_s > 0.0 ? format::seconds(r.measured_s) : "-") +
         td(r.simulated_s > 0.0 ? format::seconds(r.simulated_s) : "-") + td(ratio) + "</tr>\n";
  }
  return t + "</table>\n";
}

}  // namespace

std::string trace_compare_page(const std::vector<ProfileComparison>& cs) {
  std::string h =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>stepsim trace "
      "compare</title>\n" +
      std::string(page_style()) + "</head><body>\n<h1>Profiles against the simulated step</h1>\n";
  for (const ProfileComparison& pc : cs) {
    const profile::Comparison& c = pc.c;
    h += "<h2>" + escape(c.measured.file.path) + " against " + escape(pc.against) + "</h2>\n";
    h += "<p>Span " + format::seconds(c.measured.span_s) + " measured, " +
         format::seconds(c.simulated.span_s) + " simulated; idle " +
         format::seconds(c.measured.idle_s()) + " measured, " +
         format::seconds(c.simulated.idle_s()) +
         " simulated. Each lane is a stream; a bin is coloured by the class that ran longest in "
         "it, paler where the stream ran for less of it.</p>\n";
    h += figure(pc);
    h += class_table(c);
  }
  return h + "</body></html>\n";
}

}  // namespace stepsim::report
