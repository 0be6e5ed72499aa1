#include "sim/report/schedule_svg.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/engine/check.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/svg.hpp"

namespace stepsim::report {

using format::fixed;
using format::seconds;

namespace {

using engine::Time;
using exec::StepOp;

constexpr double kLeft = 120, kTop = 56, kRow = 22, kGap = 6;
constexpr double kBox = 16, kStrip = 4;  // compute boxes, then the communication strip below them
constexpr double kInsetGap = 48;         // pixels between a step on the shared scale and its zoom
constexpr double kOwnBox = 3;  // pixels: a narrower box joins its class's path (join_subpixel)
// Elements a joined diagram may hold (a box is up to three: rectangle, tooltip, label).
constexpr double kElementBudget = 4500;

// A box class in words, for the tooltip of its joined narrow boxes.
std::string phase_words(const std::string& cls) {
  if (cls == "F") return "forward";
  if (cls == "B") return "backward";
  if (cls == "W") return "weight-gradient";
  if (cls == "FB") return "overlapped forward/backward";
  return "step-end";
}

struct Run {
  std::tuple<workload::Phase, int, int> key;  // phase, micro-batch, stage
  Time start, end;
};

struct Box {
  std::string cls, label;
  Time start, end;
  std::string what;  // its tooltip, before the times
};

std::string phase_name(workload::Phase phase) {
  switch (phase) {
    case workload::Phase::forward:
      return "forward";
    case workload::Phase::backward:
      return "input gradient";
    case workload::Phase::backward_weight:
      return "backward";
    case workload::Phase::weight:
      return "weight gradient";
    case workload::Phase::step_end:
      return "step end (optimizer, gradient reduction)";
  }
  STEPSIM_UNREACHABLE("phase");
}

bool forward(workload::Phase phase) {
  return phase == workload::Phase::forward;
}
bool backward(workload::Phase phase) {
  return workload::is_backward(phase);
}

// The rank's compute stream as boxes (see the header).
std::vector<Box> boxes_of(const run::Result& s, int device) {
  const auto& g = s.build.graph;
  const auto& t = s.timeline;
  std::vector<Run> runs;
  for (int id : g.streams[device][static_cast<int>(workload::StreamKind::compute)]) {
    const StepOp& op = g.ops[id];
    const auto key = std::make_tuple(op.phase, op.mb, op.stage);
    if (!runs.empty() && runs.back().key == key && runs.back().end == t.start[id])
      runs.back().end = t.end[id];
    else
      runs.push_back({key, t.start[id], t.end[id]});
  }
  std::vector<Box> out;
  for (std::size_t i = 0; i < runs.size();) {
    const auto [phase, mb, stage] = runs[i].key;
    // An overlapped F&B pair: at least three contiguous runs alternating between a forward and a
    // backward chunk.
    std::size_t j = i + 1;
    if (j < runs.size() && runs[j].start == runs[j - 1].end) {
      const workload::Phase other = std::get<0>(runs[j].key);
      if ((forward(phase) && backward(other)) || (backward(phase) && forward(other)))
        while (j < runs.size() && runs[j].start == runs[j - 1].end &&
               runs[j].key == runs[i + (j - i) % 2].key)
          ++j;
    }
    if (j - i >= 3) {
      const int fmb = forward(phase) ? mb : std::get<1>(runs[i + 1].key);
      const int bmb = forward(phase) ? std::get<1>(runs[i + 1].key) : mb;
      out.push_back(
          {"FB", std::to_string(fmb) + "/" + std::to_string(bmb), runs[i].start, runs[j - 1].end,
           "forward of micro-batch " + std::to_string(fmb) + " overlapped with backward of " +
               std::to_string(bmb) + " (" + std::to_string(j - i) + " alternating runs)"});
      i = j;
      continue;
    }
    std::string cls = backward(phase) ? "B" : std::string(1, workload::letter(phase));
    out.push_back({cls, mb >= 0 ? std::to_string(mb) : std::string(), runs[i].start, runs[i].end,
                   phase_name(phase) +
                       (mb >= 0 ? ", micro-batch " + std::to_string(mb) : std::string()) +
                       (stage >= 0 ? ", stage " + std::to_string(stage) : std::string())});
    ++i;
  }
  return out;
}

// Boxes (or intervals) closer than half a pixel to the previous one of the same class join it, so
// a step drawn small has a box per visible run, not per op.
template <class T, class Px, class Same, class Join>
std::vector<T> join_subpixel(std::vector<T> items, Px px, Same same, Join join) {
  std::vector<T> out;
  for (T& it : items) {
    if (!out.empty() && same(out.back(), it) && px(it).first - px(out.back()).second < 0.5)
      join(out.back(), it);
    else
      out.push_back(std::move(it));
  }
  return out;
}

// Where seconds fall on the diagram's time axis, in pixels.
struct Axis {
  double left, total, width;
  double xs(double seconds) const { return left + seconds / total * width; }
  double x(Time t) const { return xs(t.seconds()); }
};

// A rank's compute boxes: a rectangle with its tooltip each, or (joined) the narrow ones as a
// path per class.
std::string compute_boxes(const run::Result& s, int d, double y, int rows, const ScheduleView& view,
                          const Axis& ax) {
  auto x = [&](Time t) { return ax.x(t); };
  auto box_px = [&](const Box& b) { return std::make_pair(x(b.start), x(b.end)); };
  std::string o;
  std::vector<Box> boxes = boxes_of(s, d);
  if (view.join_subpixel)
    boxes = join_subpixel(
        std::move(boxes), box_px, [](const Box& a, const Box& b) { return a.cls == b.cls; },
        [](Box& a, const Box& b) {
          a.end = b.end;
          if (a.what == b.what) return;  // pieces of one micro-batch's work
          if (!a.label.empty())
            a.what = a.cls == "FB" ? "overlapped forward/backward pairs"
                                   : a.what.substr(0, a.what.find(',')) + ", several micro-batches";
          a.label.clear();
        });
  // Drawn small, boxes narrower than kOwnBox pixels go into one path per class (its tooltip
  // their count and time) instead of a rectangle each: a step of thousands of micro-batch
  // chunks would otherwise be tens of thousands of elements no one can point at.
  // So are all but the widest boxes where a rank has more than its share of kElementBudget.
  std::map<std::string, std::pair<std::string, std::pair<int, double>>> small;  // path, n, s
  double own_from = kOwnBox;
  const auto own_boxes =
      static_cast<std::size_t>(std::max(0.0, (kElementBudget / rows - 24.0) / 3.0));
  if (view.join_subpixel && boxes.size() > own_boxes) {
    std::vector<double> widths;
    for (const Box& b : boxes) widths.push_back(x(b.end) - x(b.start));
    std::sort(widths.begin(), widths.end(), std::greater<>());
    // Strictly wider than the first box left out, so ties stay within the share.
    own_from = std::max(own_from, std::nextafter(widths[own_boxes], INFINITY));
  }
  std::size_t owned = 0;
  for (const Box& b : boxes) {
    const double x0 = x(b.start), w = std::max(x(b.end) - x0, 0.3);
    if (view.join_subpixel && (x(b.end) - x0 < own_from || owned >= own_boxes)) {
      auto& [path, tally] = small[b.cls];
      path += "M" + fixed(x0, 2) + " " + fixed(y, 1) + "h" + fixed(w, 2) + "v" + fixed(kBox, 1) +
              "h-" + fixed(w, 2) + "z";
      ++tally.first;
      tally.second += b.end.seconds() - b.start.seconds();
      continue;
    }
    ++owned;
    o += titled("<rect class=\"" + b.cls + "\" x=\"" + fixed(x0, 2) + "\" y=\"" + fixed(y, 1) +
                    "\" width=\"" + fixed(w, 2) + "\" height=\"" + fixed(kBox, 1) + "\"/>\n",
                "rank " + s.build.graph.label(d) + ": " + b.what + ", at " +
                    seconds(b.start.seconds()) + " for " +
                    seconds(b.end.seconds() - b.start.seconds()));
    if (!b.label.empty() && w >= 6.0 * b.label.size() + 2.0)
      o += "<text class=\"in\" x=\"" + fixed(x0 + 1.5, 2) + "\" y=\"" + fixed(y + kBox * 0.75, 1) +
           "\">" + b.label + "</text>\n";
  }
  for (const auto& [cls, drawn] : small)
    o += titled("<path class=\"" + cls + "\" d=\"" + drawn.first + "\"/>\n",
                "rank " + s.build.graph.label(d) + ": " + std::to_string(drawn.second.first) +
                    " narrow " + phase_words(cls) + " boxes, " + seconds(drawn.second.second) +
                    " in all (zoom in: --trace has each op)");
  return o;
}

// A rank's strip of communication in flight: a rectangle per interval, or (joined) one path.
std::string comm_strip(const run::Result& s, int d, double y, const ScheduleView& view,
                       const Axis& ax) {
  auto xs = [&](double seconds) { return ax.xs(seconds); };
  auto span_px = [&](const std::pair<double, double>& p) {
    return std::make_pair(xs(p.first), xs(p.second));
  };
  std::string o;
  auto comm = analysis::communication_in_flight(s.build.graph, s.timeline, d);
  if (view.join_subpixel)
    comm = join_subpixel(
        std::move(comm), span_px, [](const auto&, const auto&) { return true; },
        [](auto& a, const auto& b) { a.second = b.second; });
  if (view.join_subpixel) {
    // One path per rank: the strip's visible runs as subpaths, the rank's time in flight in
    // its tooltip (a rectangle each would be most of the diagram's elements).
    std::string path;
    double in_flight = 0.0;
    for (const auto& [from, to] : comm) {
      path += "M" + fixed(xs(from), 2) + " " + fixed(y + kRow - kStrip, 1) + "h" +
              fixed(std::max(xs(to) - xs(from), 0.3), 2) + "v" + fixed(kStrip, 1) + "h-" +
              fixed(std::max(xs(to) - xs(from), 0.3), 2) + "z";
      in_flight += to - from;
    }
    if (!path.empty())
      o += titled("<path class=\"C\" d=\"" + path + "\"/>\n",
                  "rank " + s.build.graph.label(d) + ": communication in flight " +
                      seconds(in_flight) + " of the step, in " + std::to_string(comm.size()) +
                      " runs");
  } else {
    for (const auto& [from, to] : comm)
      o += titled("<rect class=\"C\" x=\"" + fixed(xs(from), 2) + "\" y=\"" +
                      fixed(y + kRow - kStrip, 1) + "\" width=\"" +
                      fixed(std::max(xs(to) - xs(from), 0.3), 2) + "\" height=\"" +
                      fixed(kStrip, 1) + "\"/>\n",
                  "rank " + s.build.graph.label(d) + ": communication in flight, at " +
                      seconds(from) + " for " + seconds(to - from));
  }
  return o;
}

// A time axis at height y: its line to `until` seconds, a labelled tick every `tick` seconds.
std::string time_axis(const Axis& ax, double y, double tick, double until) {
  std::string o = "<line x1=\"" + fixed(ax.left, 1) + "\" y1=\"" + fixed(y, 1) + "\" x2=\"" +
                  fixed(ax.xs(until), 1) + "\" y2=\"" + fixed(y, 1) + "\" stroke=\"#000\"/>\n";
  for (int i = 0; i * tick <= until * (1 + 1e-9); ++i) {
    const double tx = ax.xs(i * tick);
    o += "<line x1=\"" + fixed(tx, 1) + "\" y1=\"" + fixed(y, 1) + "\" x2=\"" + fixed(tx, 1) +
         "\" y2=\"" + fixed(y + 5, 1) + "\" stroke=\"#000\"/>\n";
    o += "<text x=\"" + fixed(tx - 10, 1) + "\" y=\"" + fixed(y + 17, 1) + "\">" +
         seconds(i * tick) + "</text>\n";
  }
  return o;
}

}  // namespace

double schedule_label_width(const run::Result& s) {
  // Room for the longest row label (monospace 11 px: about 6.7 px a character).
  std::size_t longest = 0;
  for (int d = 0; d < s.build.graph.devices; ++d)
    longest = std::max(longest, s.build.graph.label(d).size() + 5);
  return std::max(kLeft, 20.0 + 6.7 * static_cast<double>(longest));
}

std::string schedule_svg(const run::Result& s, const ScheduleView& view) {
  const spec::ScenarioSpec& spec = s.spec();
  const double step = s.metrics.step_s > 0.0 ? s.metrics.step_s : 1.0;
  const double total = view.axis_s > 0.0 ? std::max(view.axis_s, step) : step;
  const double width = view.width;
  const int rows = s.build.graph.devices;
  const double left = std::max(schedule_label_width(s), view.left);
  const double height = kTop + rows * (kRow + kGap) + 70;
  const Axis ax{left, total, width};
  // The zoomed copy, in the width right of where the step ends on the shared scale.
  const bool inset = view.inset && view.axis_s > 0.0 && step < kInsetBelow * total;
  const double shared_w = inset ? step / total * width : width;
  const Axis zoom{left + shared_w + kInsetGap, step, width - shared_w - kInsetGap};
  std::string o = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  fixed(left + width + 20, 0) + "\" height=\"" + fixed(height, 0) +
                  "\" font-family=\"monospace\" font-size=\"11\">\n";
  o += "<style>.F{fill:#4e79a7}.B{fill:#59a14f}.W{fill:#f28e2b}.FB{fill:#b07aa1}.O{fill:#9d9d9d}.C{"
       "fill:#e15759}"
       "text.in{fill:#fff;font-size:9px}</style>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  o += "<text x=\"10\" y=\"18\" font-size=\"13\">" + escape(spec.name) + "</text>\n";
  const std::string factor = fixed(zoom.width / shared_w, 1);
  o +=
      "<text x=\"10\" y=\"36\">step " + seconds(step) + ", schedule " +
      std::string(workload::to_string(spec.parallel.schedule)) +
      (inset ? "; left on the shared scale, " + seconds(total) + " across; right the same step ×" +
                   factor
             : std::string()) +
      (view.explain ? std::string("; per pipeline rank its compute stream, and below it (red) when "
                                  "communication is in flight;"
                                  " white above red: waiting on communication; white alone: bubble")
                    : std::string()) +
      "</text>\n";
  if (inset)
    o += "<text x=\"" + fixed(zoom.left, 1) + "\" y=\"" + fixed(kTop - 6, 1) + "\">×" + factor +
         ": over its own step</text>\n";
  for (int d = 0; d < rows; ++d) {
    const double y = kTop + d * (kRow + kGap);
    o += "<text x=\"10\" y=\"" + fixed(y + kRow * 0.7, 1) + "\">rank " + s.build.graph.label(d) +
         "</text>\n";
    auto draw_row = [&](const Axis& a) {
      return "<rect x=\"" + fixed(a.left, 1) + "\" y=\"" + fixed(y, 1) + "\" width=\"" +
             fixed(a.xs(step) - a.left, 1) + "\" height=\"" + fixed(kRow, 1) +
             "\" fill=\"none\" stroke=\"#ccc\"/>\n" + compute_boxes(s, d, y, rows, view, a) +
             comm_strip(s, d, y, view, a);
    };
    o += draw_row(ax);
    if (inset) o += "<g class=\"zoom\">\n" + draw_row(zoom) + "</g>\n";
  }
  const double axis_y = kTop + rows * (kRow + kGap) + 4;
  o += time_axis(ax, axis_y, nice_step(total), inset ? step : total);
  if (inset) o += time_axis(zoom, axis_y, nice_step(step), step);
  // Legend.
  const double ly = axis_y + 38;
  const std::pair<const char*, const char*> legend[] = {
      {"F", "forward"},         {"B", "backward (input gradient, or all)"},
      {"W", "weight gradient"}, {"FB", "overlapped forward/backward pair"},
      {"O", "optimizer"},       {"C", "communication in flight"}};
  double lx = left;
  for (const auto& [cls, text] : legend) {
    o += "<rect x=\"" + fixed(lx, 1) + "\" y=\"" + fixed(ly - 10, 1) +
         "\" width=\"12\" height=\"12\" class=\"" + std::string(cls) + " key\"/>\n";
    o += "<text x=\"" + fixed(lx + 16, 1) + "\" y=\"" + fixed(ly, 1) + "\">" + text + "</text>\n";
    lx += 24 + 7.0 * std::string(text).size();
  }
  o += "</svg>\n";
  return o;
}

}  // namespace stepsim::report
