// `stepsim report`: one self-contained HTML page comparing simulated steps, for a design review.
// Inline SVG and CSS only: no script, no font, image or style sheet from anywhere, so it reads
// offline and prints (each section starts on its own when printed). Sections, each with an id:
//  1. headline: per scenario, step time, tokens/s and TFLOP/s per GPU, MFU, the roofline bound,
//     what limits it and by how much, the simulated step against it, memory peak against capacity,
//     and the faults applied;
//  2. roofline: the roofline chart per scenario with its kernel classes (html_charts.hpp);
//  3. breakdown: compute, exposed communication, bubble and other idle per pipeline rank and mean;
//  4. schedule: the schedule diagram per scenario, all on the longest step's time scale, a step
//     under a third of it with a zoomed inset beside it (schedule_svg.hpp); as an option each
//     over its own step;
//  5. links: utilisation per link group over the step and the busiest links;
//  6. memory: memory per pipeline rank over the step against capacity;
//  7. collectives: per traffic kind, bytes, time, achieved bus bandwidth and algorithm;
//  8. stress (when a run has a campaign, stepsim report --stress): per scenario, the draws, the
//     step-time change's median, p90, p99 and max, its histogram and the costliest components.
// Deterministic: the same simulations give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "sim/run/pipeline.hpp"
#include "sim/search/campaign.hpp"

namespace stepsim::report {

struct ReportRun {
  std::string label;  // e.g. the scenario file's stem
  const run::Result* sim = nullptr;
  const search::Campaign* campaign = nullptr;  // its stress campaign, if one was run
};

// The section ids, in page order.
inline constexpr const char* kReportSections[] = {"headline", "roofline", "breakdown",  "schedule",
                                                  "links",    "memory",   "collectives"};

// The page beside the simulations (the schedule diagrams' boxes, the link strips, the HTML, their
// tooltips): measured, the three DeepSeek-V3 scenarios' page is 2.8 MB, 14 B per operation;
// allowed 40, for the string's growth.
constexpr double kReportBytesPerOp = 40.0;

struct ReportOptions {
  bool own_axis = false;  // each schedule diagram over its own step, not the longest step's scale
};

std::string html_report(const std::vector<ReportRun>& runs, const ReportOptions& options = {});

}  // namespace stepsim::report
