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

namespace {

std::string chart_pct(double f) {
  return fixed(100.0 * f, f < 0.1 ? 1 : 0) + "%";
}

// "0.1", "1", "10", ..., "1k", "1M": a decade's label.
std::string decade(int e) {
  static constexpr const char* kNames[] = {"0.01", "0.1", "1",    "10", "100",
                                           "1k",   "10k", "100k", "1M", "10M"};
  return e >= -2 && e <= 7 ? kNames[e + 2] : "1e" + std::to_string(e);
}

}  // namespace

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

std::string roofline_chart(const run::Result& s, const std::string& id) {
  constexpr double kW = 590, kH = 400, kL = 86, kR = 430, kT = 28, kB = 350;
  const std::vector<analysis::KernelClassWork>& classes = s.kernel_classes;
  const auto& cl = s.spec().cluster;
  const auto& dev = cl.device;
  const analysis::Roofline& r = s.roofline;
  double top_rate = 0.0;
  for (int p = 0; p < spec::kPrecisionCount; ++p)
    if (dev.supports(static_cast<spec::Precision>(p)))
      top_rate = std::max(top_rate, dev.rate(static_cast<spec::Precision>(p)).peak_flops);
  const int y_hi_e = static_cast<int>(std::ceil(std::log10(top_rate) + 1e-9));
  const LogAxis x{1e-1, 1e6, kL, kR};
  const LogAxis y{std::pow(10.0, y_hi_e - 5), std::pow(10.0, y_hi_e), kB, kT};
  std::string o = svg_open(kW, kH);
  o += "<defs><clipPath id=\"" + id + "\"><rect x=\"" + fixed(kL, 0) + "\" y=\"" + fixed(kT, 0) +
       "\" width=\"" + fixed(kR - kL, 0) + "\" height=\"" + fixed(kB - kT, 0) +
       "\"/></clipPath></defs>\n";
  // Grid and axes.
  for (int e = -1; e <= 6; ++e) {
    const double px = x.at(std::pow(10.0, e));
    o += svg_line(px, kT, px, kB, "#e6e6e6");
    o += svg_text(px, kB + 18, decade(e), "", "middle");
  }
  for (int e = y_hi_e - 5; e <= y_hi_e; ++e) {
    const double py = y.at(std::pow(10.0, e));
    o += svg_line(kL, py, kR, py, "#e6e6e6");
    o += svg_text(kL - 4, py + 4, si(std::pow(10.0, e), "FLOP/s", 0), "", "end");
  }
  o += svg_rect(kL, kT, kR - kL, kB - kT, "none", "stroke=\"#888\"");
  o +=
      svg_text((kL + kR) / 2, kB + 36,
               "arithmetic intensity, FLOP per byte (of HBM for kernels, of the link for networks)",
               "", "middle");
  o += svg_text(10, (kT + kB) / 2, "attainable FLOP/s per GPU",
                "transform=\"rotate(-90 10 " + fixed((kT + kB) / 2, 0) + ")\"", "middle");
  o += "<g clip-path=\"url(#" + id + ")\">\n";
  // Compute roofs per precision: achievable (solid), datasheet (dashed).
  const double hbm = r.hbm_bandwidth;  // the measured one the roofline used
  int colour = 0;
  std::vector<std::pair<double, std::string>> right_labels;
  // Precisions with the same rates share a roof ("bf16/fp16").
  std::vector<std::pair<std::string, spec::ComputeRate>> roofs;
  for (int p = 0; p < spec::kPrecisionCount; ++p) {
    const auto prec = static_cast<spec::Precision>(p);
    if (!dev.supports(prec)) continue;
    const spec::ComputeRate& rate = dev.rate(prec);
    auto same = std::find_if(roofs.begin(), roofs.end(), [&](const auto& roof) {
      return roof.second.peak_flops == rate.peak_flops &&
             roof.second.achievable_flops == rate.achievable_flops;
    });
    if (same != roofs.end())
      same->first += "/" + std::string(spec::to_string(prec));
    else
      roofs.push_back({std::string(spec::to_string(prec)), rate});
  }
  for (const auto& [name, rate] : roofs) {
    const std::string c = palette(colour++);
    for (const auto& [flops, bw, dash] : {std::tuple{rate.achievable_flops, hbm, false},
                                          std::tuple{rate.peak_flops, dev.hbm_bandwidth, true}}) {
      if (flops <= 0.0 || bw <= 0.0) continue;
      const double x0 = std::max(x.lo, y.lo / bw), ridge = flops / bw;
      std::vector<std::pair<double, double>> pts{{x.at(x0), y.at(x0 * bw)}};
      if (ridge < x.hi) pts.push_back({x.at(ridge), y.at(flops)});
      pts.push_back({x.at(x.hi), y.at(std::min(flops, x.hi * bw))});
      o += titled(
          svg_polyline(pts, c,
                       dash ? "stroke-width=\"1\" stroke-dasharray=\"4 3\"" : "stroke-width=\"2\""),
          name + (dash ? " datasheet roof: " : " achievable roof: ") + si3(flops, "FLOP/s") +
              ", HBM " + si3(bw, "B/s") + (dash ? " (datasheet)" : " (measured)"));
    }
    right_labels.push_back(
        {y.at(rate.achievable_flops), name + " " + si3(rate.achievable_flops, "FLOP/s")});
  }
  // Network roofs: attainable = FLOP per link byte x link bandwidth; their labels are placed
  // after the marks, where they overlap no other label.
  struct NetLabel {
    double x0, x1, bw;
    std::string text;
    const char* colour;
  };
  std::vector<NetLabel> net_labels;
  LabelSpace space;
  const std::pair<double, const char*> nets[] = {{cl.nvlink.bandwidth, "NVLink"},
                                                 {cl.fabric.nic.bandwidth, "NIC"}};
  const char* net_colour[] = {"#6b3fa0", "#8c564b"};
  for (int n = 0; n < 2; ++n) {
    const double bw = nets[n].first;
    if (bw <= 0.0 || (n == 1 && cl.fabric.kind == spec::FabricKind::none)) continue;
    const double x0 = std::max(x.lo, y.lo / bw), x1 = std::min(x.hi, y.hi / bw);
    const std::string label = std::string(nets[n].second) + " " + si3(bw, "B/s") + " per GPU";
    o += titled(svg_polyline({{x.at(x0), y.at(x0 * bw)}, {x.at(x1), y.at(x1 * bw)}}, net_colour[n],
                             "stroke-width=\"1.5\" stroke-dasharray=\"1 3\""),
                std::string(nets[n].second) + " roof: attainable = FLOP per byte sent x " +
                    si3(bw, "B/s") + " per GPU");
    net_labels.push_back({x0, x1, bw, label, net_colour[n]});
  }
  // The simulated kernel rate of this rank (its FLOPs over the time its compute stream ran) and
  // what the simulated step achieved.
  const double flops = r.per_rank[r.device].flops;
  const double busy = static_cast<std::size_t>(r.device) < s.metrics.per_rank.size()
                          ? s.metrics.per_rank[r.device].compute
                          : 0.0;
  const double kernel_rate = busy > 0.0 ? flops / busy : 0.0;
  if (kernel_rate > 0.0) {
    const std::string text = "simulated kernels: " + si3(kernel_rate, "FLOP/s");
    o += titled(
        svg_line(kL, y.at(kernel_rate), kR, y.at(kernel_rate), "#333", "stroke-dasharray=\"2 2\""),
        "simulated kernel rate of this rank: " + si(flops, "FLOP", 3) + " in " + seconds(busy) +
            " of compute");
    o += svg_text(kL + 4, y.at(kernel_rate) - 4, text, "fill=\"#333\"");
    space.take({kL + 4, y.at(kernel_rate) - 4, text});
  }
  // Kernel classes.
  double total_s = 0.0;
  for (const auto& c : classes) total_s += c.seconds;
  for (const auto& c : classes) {
    const std::string col = kernel_class_colour(c.name);
    if (c.flops <= 0.0 || c.bytes <= 0.0 || c.seconds <= 0.0) continue;
    const double xi = c.flops / c.bytes, yi = c.flops / c.seconds;
    const double radius = 3.0 + 16.0 * std::sqrt(c.seconds / total_s);
    o += titled("<circle cx=\"" + fixed(x.at(xi), 1) + "\" cy=\"" + fixed(y.at(yi), 1) + "\" r=\"" +
                    fixed(radius, 1) + "\" fill=\"" + col +
                    "\" fill-opacity=\"0.75\" stroke=\"#222\"/>\n",
                c.name + ": " + si3(yi, "FLOP/s") + " at " + fixed(xi, xi < 10 ? 1 : 0) +
                    " FLOP per byte, " + chart_pct(c.seconds / total_s) + " of kernel time (" +
                    seconds(c.seconds) + ")");
  }
  // Network diamonds: the step's FLOP per byte over each network, on that network's roof.
  // Its height is the rate the network's time allows (FLOPs / the roofline's NVLink or InfiniBand
  // time): on the roof, or below the NIC's where the leaf uplinks bind.
  const double comm[] = {r.per_rank[r.device].comm.nvlink, r.per_rank[r.device].comm.ib};
  const double comm_s[] = {r.nvlink_s, r.ib_s};
  struct Diamond {
    double cx, cy;
    std::string text;
    const char* colour;
  };
  std::vector<Diamond> diamonds;
  for (int n = 0; n < 2; ++n) {
    if (comm[n] <= 0.0 || comm_s[n] <= 0.0 || nets[n].first <= 0.0) continue;
    const double xi = flops / comm[n], yi = std::min(flops / comm_s[n], y.hi);
    const double cx = x.at(std::clamp(xi, x.lo, x.hi)), cy = y.at(std::max(yi, y.lo));
    o += titled("<path d=\"M" + fixed(cx, 1) + " " + fixed(cy - 8, 1) +
                    " l8 8 l-8 8 l-8 -8 z\" fill=\"" + std::string(net_colour[n]) +
                    "\" stroke=\"#000\"/>\n",
                std::string("the step over ") + nets[n].second + ": " + fixed(xi, xi < 10 ? 1 : 0) +
                    " FLOP per byte sent; its time (" + seconds(comm_s[n]) + ") allows " +
                    si3(flops / comm_s[n], "FLOP/s"));
    space.take_box(cx - 8, cy - 8, cx + 8, cy + 8);
    diamonds.push_back({cx, cy, std::string("step over ") + nets[n].second, net_colour[n]});
  }
  // Diamond labels beside their diamond (level with it, higher, lower; right, then left), at the
  // first place inside the plot that is free; right and level when none is.
  for (const auto& d : diamonds) {
    const double width = 7.0 * static_cast<double>(d.text.size());
    LabelSpace::Label at{d.cx + 10, d.cy + 4, d.text, 11.5, "start"};
    bool placed = false;
    for (const double dy : {4.0, -12.0, 20.0})
      for (const bool right : {true, false}) {
        const LabelSpace::Label l{d.cx + (right ? 10 : -10), d.cy + dy, d.text, 11.5,
                                  right ? "start" : "end"};
        if (!placed && (right ? l.x + width < kR : l.x - width > kL) && space.free(l)) {
          at = l;
          placed = true;
        }
      }
    space.take(at);
    o += svg_text(at.x, at.y, d.text, "font-weight=\"bold\" fill=\"" + std::string(d.colour) + "\"",
                  at.anchor);
  }
  // Network labels along their line, low in the chart where the roofs leave room, else higher.
  const double angle = std::atan2((kB - kT) / 5.0, (kR - kL) / 7.0) * 180.0 / 3.14159265358979;
  for (const auto& nl : net_labels) {
    std::optional<LabelSpace::Label> at;
    for (const double f : {20.0, 60.0, 6.0, 200.0, 600.0, 2.0}) {
      const double lx = std::max(nl.x0, y.lo * f / nl.bw);
      if (lx >= nl.x1) continue;
      const LabelSpace::Label l{x.at(lx), y.at(lx * nl.bw) - 4, nl.text, 11.0, "start", angle};
      if (!at) at = l;
      if (space.free(l)) {
        at = l;
        break;
      }
    }
    if (!at) continue;
    space.take(*at);
    o += svg_text(at->x, at->y, nl.text,
                  "fill=\"" + std::string(nl.colour) + "\" transform=\"rotate(-" + fixed(angle, 1) +
                      " " + fixed(at->x, 1) + " " + fixed(at->y, 1) + ")\"");
  }
  o += "</g>\n";
  if (s.metrics.step_s > 0.0) {
    const double achieved = flops / s.metrics.step_s;
    const double py = y.at(std::max(achieved, y.lo));
    o += titled(svg_line(kR - 10, py, kR + 2, py, "#000", "stroke-width=\"3\""),
                "the simulated step on this rank: " + si(flops, "FLOP", 3) + " in " +
                    seconds(s.metrics.step_s) + " (recompute counted)");
    right_labels.push_back({py, "step " + si3(achieved, "FLOP/s")});
  }
  // Right-hand labels top to bottom, each at least a line below the one above.
  std::stable_sort(right_labels.begin(), right_labels.end());
  double below = 0.0;
  for (const auto& [py, text] : right_labels) {
    const double at = std::max(py + 4, below + 13);
    o += svg_text(
        kR + 6, at, text,
        text.rfind("step", 0) == 0 ? "font-size=\"10\" font-weight=\"bold\"" : "font-size=\"10\"");
    below = at;
  }
  o += "</svg>\n";
  return o;
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
