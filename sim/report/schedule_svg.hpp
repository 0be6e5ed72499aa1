// The simulated step as a pipeline schedule diagram (SVG), in the style of the figures of the
// DualPipe and zero-bubble papers: one row per pipeline rank, time to the right, the compute
// stream's work as boxes coloured by kind and labelled with their micro-batch.
//
// A box is a run of the rank's compute ops that follow one another without a gap: a forward chunk
// (F), an input-gradient or full backward chunk (B), a weight-gradient chunk (W), or, where the
// ops of a forward and a backward chunk alternate (DualPipe's overlapped pairs), one F&B box
// labelled "f/b" with both micro-batches. The optimizer step is grey. Below the boxes a thin red
// strip marks when any communication op of the rank (expert all-to-all, pipeline send, gradient
// reduction) is in flight. White on the row is the compute stream idle: above red, waiting on
// communication that is not hidden; alone, pipeline bubble. Boxes narrower than a pixel are still
// drawn; labels only where they fit. Every box and strip has a tooltip (<title>): the rank, what
// ran (phase, micro-batch, stage) and from when to when.
// Deterministic: the same step gives the same bytes.
#pragma once

#include <string>

#include "sim/run/pipeline.hpp"

namespace stepsim::report {

// Memory the diagram takes per estimated operation: the DualPipe diagram is 75 B per operation on
// disk (its tooltips the most of it), twice that while its string grows, rounded up.
constexpr double kSvgBytesPerOp = 160.0;

// How the diagram is drawn: the width of its time axis in pixels, the seconds that width stands
// for (0: the step's own; a report comparing steps gives them all the longest, so they share one
// scale), and whether boxes closer than half a pixel join (a long axis makes most boxes tiny) and
// boxes narrower than 3 pixels are drawn as one path per class and rank, as is the communication
// strip (each path's tooltip its count and time; the trace has every op).
//
// With `inset`, a step shorter than kInsetBelow of the shared axis is drawn twice: on the shared
// scale, where it ends where the longer steps' axes read its length, and beside it, in the width
// the shared scale leaves empty, over its own step (a zoom by the ratio of the two widths, said in
// its header), so a 20 s step next to a 290 s one is both comparable and readable.
constexpr double kInsetBelow = 1.0 / 3.0;

struct ScheduleView {
  double width = 1400.0;
  double axis_s = 0.0;
  bool inset = false;
  bool join_subpixel = false;
  bool explain = true;  // the line saying how to read the diagram (a report says it once)
  double left = 0.0;    // where the time axis starts, at least; diagrams sharing an axis align
};

// Where a diagram's time axis starts: after its longest row label.
double schedule_label_width(const run::Result& s);

std::string schedule_svg(const run::Result& s, const ScheduleView& view = {});

}  // namespace stepsim::report
