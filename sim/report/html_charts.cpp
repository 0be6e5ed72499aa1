#include "sim/report/html_charts.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/format/text_table.hpp"
#include "sim/report/svg.hpp"

namespace stepsim::report {

using format::fixed;
using format::seconds;
using format::si;
using format::si3;

std::string kernel_class_colour(const std::string& name) {
  static constexpr const char* kNames[] = {
      "GEMM fp8",          "grouped GEMM fp8",   "GEMM bf16",
      "grouped GEMM bf16", "attention fwd bf16", "attention bwd bf16",
      "attention fwd fp8", "attention bwd fp8",  "memory-bound"};
  static constexpr const char* kColours[] = {"#edc948", "#ff9da7", "#76b7b2", "#17becf", "#bab0ac",
                                             "#b07aa1", "#dbdb8d", "#9467bd", "#9c755f"};
  for (std::size_t i = 0; i < std::size(kNames); ++i)
    if (name == kNames[i]) return kColours[i];
  return "#7f7f7f";
}

std::string breakdown_chart(const std::vector<BreakdownInput>& runs) {
  constexpr double kW = 1180, kLabel = 150, kBar = 560, kRow = 20, kHead = 24;
  double height = 40;
  for (const auto& r : runs) height += kHead + kRow * (1 + r.metrics->per_rank.size()) + 12;
  std::string o = svg_open(kW, height);
  struct Part {
    double analysis::Breakdown::*field;
    const char* colour;
    const char* name;
    const char* brief;
  };
  static constexpr Part kParts[] = {
      {&analysis::Breakdown::compute, kComputeColour, "compute", "compute"},
      {&analysis::Breakdown::synchronisation, kSyncColour, "synchronisation", "sync"},
      {&analysis::Breakdown::exposed_comm, kExposedColour, "exposed communication", "exposed"},
      {&analysis::Breakdown::bubble, kBubbleColour, "bubble", "bubble"},
      {&analysis::Breakdown::other_idle, kOtherColour, "other idle", "idle"}};
  double lx = kLabel;
  bool sync = false;  // a legend entry only where some GPU waits for a slower one
  for (const auto& run : runs) sync = sync || run.metrics->mean.synchronisation > 0.0;
  for (const Part& p : kParts) {
    if (p.field == &analysis::Breakdown::synchronisation && !sync) continue;
    o += svg_rect(lx, 8, 12, 12, p.colour, "class=\"key\"");
    o += svg_text(lx + 16, 18, p.name);
    lx += 30 + 7.0 * std::string(p.name).size();
  }
  o += svg_rect(lx, 13, 12, 4, kOverlapColour, "class=\"key\"");
  o += svg_text(lx + 16, 18, "overlapped communication (beneath, share of the step)");
  double y = 40;
  for (const auto& run : runs) {
    const analysis::StepMetrics& m = *run.metrics;
    const double t = m.step_s > 0.0 ? m.step_s : 1.0;
    o += svg_text(4, y + 16, run.label + ": step " + seconds(m.step_s), "font-weight=\"bold\"");
    y += kHead;
    auto bar = [&](const std::string& label, const analysis::Breakdown& b, bool bold) {
      o += svg_text(kLabel - 6, y + 12, label, bold ? "font-weight=\"bold\"" : "", "end");
      double x = kLabel;
      std::string parts;
      for (const Part& p : kParts) {
        const double f = b.*p.field / t;
        o += titled(svg_rect(x, y + 2, f * kBar, kRow - 8, p.colour),
                    run.label + ", " + label + ": " + p.name + " " + chart_pct(f) + " (" +
                        seconds(b.*p.field) + ")");
        x += f * kBar;
        if (f >= 0.005)
          parts += (parts.empty() ? "" : ", ") + std::string(p.brief) + " " + chart_pct(f);
        if (p.field == &analysis::Breakdown::compute && b.compute_slowed / t >= 0.005)
          parts += " (" + chart_pct(b.compute_slowed / t) + " slowed)";
      }
      o += titled(svg_rect(kLabel, y + kRow - 5, b.overlapped_comm / t * kBar, 3, kOverlapColour),
                  run.label + ", " + label + ": communication overlapped with compute " +
                      chart_pct(b.overlapped_comm / t) + " (" + seconds(b.overlapped_comm) + ")");
      o += svg_text(
          kLabel + kBar + 8, y + 12,
          parts + (b.overlapped_comm > 0.0 ? "; overlap " + chart_pct(b.overlapped_comm / t)
                                           : std::string()));
      y += kRow;
    };
    bar("mean", m.mean, true);
    for (std::size_t rank = 0; rank < m.per_rank.size(); ++rank)
      bar("rank " + std::to_string(rank), m.per_rank[rank], false);
    y += 12;
  }
  o += "</svg>\n";
  return o;
}

std::string link_heat_chart(const analysis::LinkUsage& u) {
  constexpr double kW = 1180, kLabel = 190, kStrip = 720, kRow = 24;
  std::vector<int> groups;
  for (int g = 0; g < hw::kLinkGroups; ++g)
    if (u.links[g] > 0) groups.push_back(g);
  const double height = 20 + kRow * groups.size() + 60;
  std::string o = svg_open(kW, height);
  double y = 12;
  for (int g : groups) {
    const auto group = static_cast<hw::LinkGroup>(g);
    o += svg_text(kLabel - 6, y + 15,
                  std::string(hw::to_string(group)) + " (" + std::to_string(u.links[g]) + ")", "",
                  "end");
    const auto& bins = u.utilisation[g];
    const double w = bins.empty() ? kStrip : kStrip / bins.size();
    o += svg_rect(kLabel, y + 2, kStrip, kRow - 4, "#fff", "stroke=\"#ccc\"");
    for (std::size_t k = 0; k < bins.size(); ++k)
      if (bins[k] > 0.0)
        o += titled(svg_rect(kLabel + k * w, y + 2, w + 0.05, kRow - 4, heat_colour(bins[k])),
                    std::string(hw::to_string(group)) + ", " + seconds(u.step_s * k / bins.size()) +
                        " to " + seconds(u.step_s * (k + 1) / bins.size()) + ": " +
                        chart_pct(bins[k]) + " utilised");
    o += svg_text(
        kLabel + kStrip + 8, y + 15,
        "mean " + chart_pct(u.mean(group)) + ", busiest moment " + chart_pct(u.peak(group)));
    y += kRow;
  }
  // Time axis and colour scale.
  const double tick = nice_step(u.step_s > 0.0 ? u.step_s : 1.0);
  o += svg_line(kLabel, y + 2, kLabel + kStrip, y + 2, "#000");
  for (int i = 0; u.step_s > 0.0 && i * tick <= u.step_s * (1 + 1e-9); ++i) {
    const double tx = kLabel + i * tick / u.step_s * kStrip;
    o += svg_line(tx, y + 2, tx, y + 7, "#000");
    o += svg_text(tx, y + 19, seconds(i * tick), "", "middle");
  }
  const double sy = y + 32;
  o += svg_text(kLabel - 6, sy + 10, "utilisation", "", "end");
  for (int i = 0; i <= 10; ++i) {
    o += svg_rect(kLabel + i * 36, sy, 36, 12, heat_colour(i / 10.0),
                  "stroke=\"#ccc\" class=\"key\"");
    if (i % 2 == 0) o += svg_text(kLabel + i * 36 + 18, sy + 24, chart_pct(i / 10.0), "", "middle");
  }
  o += "</svg>\n";
  return o;
}

std::string memory_chart(const run::Result& s) {
  constexpr double kW = 580, kH = 280, kL = 64, kR = 440, kT = 16, kB = 236;
  const double cap = s.prepared.memory.capacity, step = s.metrics.step_s > 0 ? s.metrics.step_s : 1;
  double top = std::max(cap, s.memory.peak_bytes) * 1.1;
  if (top <= 0.0) top = 1.0;
  const LinearAxis x{0.0, step, kL, kR};
  const LinearAxis y{0.0, top, kB, kT};
  std::string o = svg_open(kW, kH);
  const double gb_tick = nice_step(top / 1e9) * 1e9;
  for (int i = 0; i * gb_tick <= top; ++i) {
    o += svg_line(kL, y.at(i * gb_tick), kR, y.at(i * gb_tick), "#eee");
    o += svg_text(kL - 4, y.at(i * gb_tick) + 4, fixed(i * gb_tick / 1e9, 0) + " GB", "", "end");
  }
  const double tick = nice_step(step);
  for (int i = 0; i * tick <= step * (1 + 1e-9); ++i)
    o += svg_text(x.at(i * tick), kB + 18, seconds(i * tick), "", "middle");
  o += svg_rect(kL, kT, kR - kL, kB - kT, "none", "stroke=\"#888\"");
  const auto& g = s.build.graph;
  const int rows = static_cast<int>(s.memory.per_device.size());
  for (int d = 0; d < rows; ++d) {
    const auto& tl = s.memory.per_device[d];
    if (tl.empty()) continue;
    std::vector<std::pair<double, double>> pts;
    double last = tl.front().second;
    for (const auto& [t, bytes] : tl) {
      pts.push_back({x.at(t.seconds()), y.at(last)});
      pts.push_back({x.at(t.seconds()), y.at(bytes)});
      last = bytes;
    }
    pts.push_back({x.at(step), y.at(last)});
    // Join points that fall on the same pixel column and height.
    std::vector<std::pair<double, double>> kept;
    for (const auto& p : pts)
      if (kept.empty() || std::abs(p.first - kept.back().first) >= 0.1 ||
          std::abs(p.second - kept.back().second) >= 0.1)
        kept.push_back(p);
    double peak = 0.0;
    for (const auto& point : tl) peak = std::max(peak, point.second);
    o += titled(svg_polyline(kept, sequential_colour(d, rows), "stroke-width=\"1.5\""),
                "rank " + g.label(d) + ": peak " + fixed(peak / 1e9, 1) + " GB per GPU");
  }
  o += titled(svg_line(kL, y.at(cap), kR, y.at(cap), "#c00",
                       "stroke-width=\"1.5\" stroke-dasharray=\"6 3\""),
              "the device's memory: " + fixed(cap / 1e9, 1) + " GB");
  o += svg_text(kR - 4, y.at(cap) - 4, "capacity " + fixed(cap / 1e9, 1) + " GB", "fill=\"#c00\"",
                "end");
  // Legend: one entry per rank, as many as fit.
  for (int d = 0; d < rows && d < 16; ++d) {
    o += svg_rect(kR + 12, kT + d * 14, 10, 3, sequential_colour(d, rows), "class=\"key\"");
    o += svg_text(kR + 26, kT + d * 14 + 5, "rank " + g.label(d));
  }
  if (rows > 16)
    o += svg_text(kR + 12, kT + 16 * 14 + 5, "+" + std::to_string(rows - 16) + " more");
  o += svg_text(kL, kH - 12,
                "peak " + fixed(s.memory.peak_bytes / 1e9, 1) + " GB per GPU on rank " +
                    g.label(s.memory.peak_device) +
                    (s.memory.peak_bytes > cap ? ": over capacity" : ""),
                s.memory.peak_bytes > cap ? "fill=\"#c00\" font-weight=\"bold\"" : "");
  o += "</svg>\n";
  return o;
}

}  // namespace stepsim::report
