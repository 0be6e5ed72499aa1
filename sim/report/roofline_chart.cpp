// The roofline chart of the HTML report (html_charts.hpp), drawn part by part.
#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/format/text_table.hpp"
#include "sim/report/html_charts.hpp"
#include "sim/report/svg.hpp"

namespace stepsim::report {

using format::fixed;
using format::seconds;
using format::si;
using format::si3;

namespace {

constexpr double kW = 590, kH = 400, kL = 86, kR = 430, kT = 28, kB = 350;
constexpr const char* kNetColour[] = {"#6b3fa0", "#8c564b"};

// "0.1", "1", "10", ..., "1k", "1M": a decade's label.
std::string decade(int e) {
  static constexpr const char* kNames[] = {"0.01", "0.1", "1",    "10", "100",
                                           "1k",   "10k", "100k", "1M", "10M"};
  return e >= -2 && e <= 7 ? kNames[e + 2] : "1e" + std::to_string(e);
}

double top_rate(const spec::DeviceSpec& dev) {
  double top = 0.0;
  for (int p = 0; p < spec::kPrecisionCount; ++p)
    if (dev.supports(static_cast<spec::Precision>(p)))
      top = std::max(top, dev.rate(static_cast<spec::Precision>(p)).peak_flops);
  return top;
}

class RooflineChart {
 public:
  RooflineChart(const run::Result& s, const std::string& id)
      : s(s),
        id(id),
        r(s.roofline),
        cl(s.spec().cluster),
        dev(cl.device),
        classes(s.kernel_classes),
        y_hi_e(static_cast<int>(std::ceil(std::log10(top_rate(dev)) + 1e-9))),
        y{std::pow(10.0, y_hi_e - 5), std::pow(10.0, y_hi_e), kB, kT},
        nets{{cl.nvlink.bandwidth, "NVLink"}, {cl.fabric.nic.bandwidth, "NIC"}},
        flops(r.per_rank[r.device].flops) {}

  std::string draw() {
    frame();
    compute_roofs();
    network_roofs();
    kernel_rate();
    kernel_classes();
    network_diamonds();
    diamond_labels();
    network_labels();
    o += "</g>\n";
    step_tick();
    side_labels();
    o += "</svg>\n";
    return o;
  }

 private:
  struct NetLabel {
    double x0, x1, bw;
    std::string text;
    const char* colour;
  };
  struct Diamond {
    double cx, cy;
    std::string text;
    const char* colour;
  };

  // The frame, grid and axes, and the clip of the plot.
  void frame() {
    o = svg_open(kW, kH);
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
    o += svg_text(
        (kL + kR) / 2, kB + 36,
        "arithmetic intensity, FLOP per byte (of HBM for kernels, of the link for networks)", "",
        "middle");
    o += svg_text(10, (kT + kB) / 2, "attainable FLOP/s per GPU",
                  "transform=\"rotate(-90 10 " + fixed((kT + kB) / 2, 0) + ")\"", "middle");
    o += "<g clip-path=\"url(#" + id + ")\">\n";
  }

  // Compute roofs per precision: achievable (solid), datasheet (dashed).
  void compute_roofs() {
    const double hbm = r.hbm_bandwidth;  // the measured one the roofline used
    int colour = 0;
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
        o += titled(svg_polyline(pts, c,
                                 dash ? "stroke-width=\"1\" stroke-dasharray=\"4 3\""
                                      : "stroke-width=\"2\""),
                    name + (dash ? " datasheet roof: " : " achievable roof: ") +
                        si3(flops, "FLOP/s") + ", HBM " + si3(bw, "B/s") +
                        (dash ? " (datasheet)" : " (measured)"));
      }
      right_labels.push_back(
          {y.at(rate.achievable_flops), name + " " + si3(rate.achievable_flops, "FLOP/s")});
    }
  }

  // Network roofs: attainable = FLOP per link byte x link bandwidth; their labels are placed
  // after the marks, where they overlap no other label.
  void network_roofs() {
    for (int n = 0; n < 2; ++n) {
      const double bw = nets[n].first;
      if (bw <= 0.0 || (n == 1 && cl.fabric.kind == spec::FabricKind::none)) continue;
      const double x0 = std::max(x.lo, y.lo / bw), x1 = std::min(x.hi, y.hi / bw);
      const std::string label = std::string(nets[n].second) + " " + si3(bw, "B/s") + " per GPU";
      o += titled(svg_polyline({{x.at(x0), y.at(x0 * bw)}, {x.at(x1), y.at(x1 * bw)}},
                               kNetColour[n], "stroke-width=\"1.5\" stroke-dasharray=\"1 3\""),
                  std::string(nets[n].second) + " roof: attainable = FLOP per byte sent x " +
                      si3(bw, "B/s") + " per GPU");
      net_labels.push_back({x0, x1, bw, label, kNetColour[n]});
    }
  }

  // The simulated kernel rate of this rank (its FLOPs over the time its compute stream ran).
  void kernel_rate() {
    const double busy = static_cast<std::size_t>(r.device) < s.metrics.per_rank.size()
                            ? s.metrics.per_rank[r.device].compute
                            : 0.0;
    const double kernel_rate = busy > 0.0 ? flops / busy : 0.0;
    if (kernel_rate > 0.0) {
      const std::string text = "simulated kernels: " + si3(kernel_rate, "FLOP/s");
      o += titled(svg_line(kL, y.at(kernel_rate), kR, y.at(kernel_rate), "#333",
                           "stroke-dasharray=\"2 2\""),
                  "simulated kernel rate of this rank: " + si(flops, "FLOP", 3) + " in " +
                      seconds(busy) + " of compute");
      o += svg_text(kL + 4, y.at(kernel_rate) - 4, text, "fill=\"#333\"");
      space.take({kL + 4, y.at(kernel_rate) - 4, text});
    }
  }

  // Kernel classes, a disc each, its area by its share of kernel time.
  void kernel_classes() {
    double total_s = 0.0;
    for (const auto& c : classes) total_s += c.seconds;
    for (const auto& c : classes) {
      const std::string col = kernel_class_colour(c.name);
      if (c.flops <= 0.0 || c.bytes <= 0.0 || c.seconds <= 0.0) continue;
      const double xi = c.flops / c.bytes, yi = c.flops / c.seconds;
      const double radius = 3.0 + 16.0 * std::sqrt(c.seconds / total_s);
      o += titled("<circle cx=\"" + fixed(x.at(xi), 1) + "\" cy=\"" + fixed(y.at(yi), 1) +
                      "\" r=\"" + fixed(radius, 1) + "\" fill=\"" + col +
                      "\" fill-opacity=\"0.75\" stroke=\"#222\"/>\n",
                  c.name + ": " + si3(yi, "FLOP/s") + " at " + fixed(xi, xi < 10 ? 1 : 0) +
                      " FLOP per byte, " + chart_pct(c.seconds / total_s) + " of kernel time (" +
                      seconds(c.seconds) + ")");
    }
  }

  // Network diamonds: the step's FLOP per byte over each network, on that network's roof.
  // Its height is the rate the network's time allows (FLOPs / the roofline's NVLink or InfiniBand
  // time): on the roof, or below the NIC's where the leaf uplinks bind.
  void network_diamonds() {
    const double comm[] = {r.per_rank[r.device].comm.nvlink, r.per_rank[r.device].comm.ib};
    const double comm_s[] = {r.nvlink_s, r.ib_s};
    for (int n = 0; n < 2; ++n) {
      if (comm[n] <= 0.0 || comm_s[n] <= 0.0 || nets[n].first <= 0.0) continue;
      const double xi = flops / comm[n], yi = std::min(flops / comm_s[n], y.hi);
      const double cx = x.at(std::clamp(xi, x.lo, x.hi)), cy = y.at(std::max(yi, y.lo));
      o += titled("<path d=\"M" + fixed(cx, 1) + " " + fixed(cy - 8, 1) +
                      " l8 8 l-8 8 l-8 -8 z\" fill=\"" + std::string(kNetColour[n]) +
                      "\" stroke=\"#000\"/>\n",
                  std::string("the step over ") + nets[n].second + ": " +
                      fixed(xi, xi < 10 ? 1 : 0) + " FLOP per byte sent; its time (" +
                      seconds(comm_s[n]) + ") allows " + si3(flops / comm_s[n], "FLOP/s"));
      space.take_box(cx - 8, cy - 8, cx + 8, cy + 8);
      diamonds.push_back({cx, cy, std::string("step over ") + nets[n].second, kNetColour[n]});
    }
  }

  // Diamond labels beside their diamond (level with it, higher, lower; right, then left), at the
  // first place inside the plot that is free; right and level when none is.
  void diamond_labels() {
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
      o += svg_text(at.x, at.y, d.text,
                    "font-weight=\"bold\" fill=\"" + std::string(d.colour) + "\"", at.anchor);
    }
  }

  // Network labels along their line, low in the chart where the roofs leave room, else higher.
  void network_labels() {
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
                    "fill=\"" + std::string(nl.colour) + "\" transform=\"rotate(-" +
                        fixed(angle, 1) + " " + fixed(at->x, 1) + " " + fixed(at->y, 1) + ")\"");
    }
  }

  // What the simulated step achieved, a tick on the right edge.
  void step_tick() {
    if (s.metrics.step_s > 0.0) {
      const double achieved = flops / s.metrics.step_s;
      const double py = y.at(std::max(achieved, y.lo));
      o += titled(svg_line(kR - 10, py, kR + 2, py, "#000", "stroke-width=\"3\""),
                  "the simulated step on this rank: " + si(flops, "FLOP", 3) + " in " +
                      seconds(s.metrics.step_s) + " (recompute counted)");
      right_labels.push_back({py, "step " + si3(achieved, "FLOP/s")});
    }
  }

  // Right-hand labels top to bottom, each at least a line below the one above.
  void side_labels() {
    std::stable_sort(right_labels.begin(), right_labels.end());
    double below = 0.0;
    for (const auto& [py, text] : right_labels) {
      const double at = std::max(py + 4, below + 13);
      o += svg_text(kR + 6, at, text,
                    text.rfind("step", 0) == 0 ? "font-size=\"10\" font-weight=\"bold\""
                                               : "font-size=\"10\"");
      below = at;
    }
  }

  const run::Result& s;
  const std::string& id;
  const analysis::Roofline& r;
  const spec::ClusterSpec& cl;
  const spec::DeviceSpec& dev;
  const std::vector<analysis::KernelClassWork>& classes;
  const int y_hi_e;
  const LogAxis x{1e-1, 1e6, kL, kR};
  const LogAxis y;
  const std::pair<double, const char*> nets[2];
  const double flops;  // of the bound's rank
  std::string o;
  std::vector<std::pair<double, std::string>> right_labels;
  std::vector<NetLabel> net_labels;
  std::vector<Diamond> diamonds;
  LabelSpace space;
};

}  // namespace

std::string roofline_chart(const run::Result& s, const std::string& id) {
  return RooflineChart(s, id).draw();
}

}  // namespace stepsim::report
