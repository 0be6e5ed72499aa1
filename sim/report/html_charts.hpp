// The charts of the HTML report (html_report.hpp), each an inline SVG string:
//  - roofline_chart: arithmetic intensity (FLOP per byte) against attainable FLOP/s, both log
//    scales, for one GPU of the roofline's slowest pipeline rank. Roofs: per precision the
//    device supports, min(rate, intensity x HBM bandwidth), solid at the achievable (measured
//    GEMM) rate and the measured bandwidth of a large memory-bound kernel, dashed at the
//    datasheet figures. Each kernel class (analysis/kernel_classes.hpp) is a disc at its
//    intensity and achieved rate (flops / seconds), its area proportional to its share of kernel
//    time. Network roofs: attainable = (FLOP per byte sent over the link) x link bandwidth, for
//    NVLink and the NIC; the step's own FLOP per NVLink and per NIC byte are diamonds at the rate
//    that network's roofline time allows (FLOPs / time): on its roof, or for InfiniBand below the
//    NIC's where the leaf uplinks (oversubscribed) bind.
//    A dashed line marks the rank's simulated kernel rate (its FLOPs over the seconds its compute
//    stream ran in the simulation); a diamond below it means that network, not the arithmetic,
//    bounds the step. `id` names its clip path, unique in the page. A black tick on the right edge
//    marks the rate the simulated step achieved ("step"). Labels inside the plot are placed where
//    they overlap no other (svg.hpp's LabelSpace).
//  - breakdown_chart: per scenario, a 100% bar per pipeline rank and for the mean: compute,
//    exposed communication, bubble, other idle, with the overlapped communication as a thin bar
//    beneath (step_metrics.hpp's definitions).
//  - link_heat_chart: utilisation per link group over the step, one heat strip each
//    (analysis/link_usage.hpp).
//  - memory_chart: memory in use per pipeline rank over the step against the device's capacity,
//    ranks on a sequential colour scale.
// Every data mark (disc, diamond, roof, bar, heat cell, memory line) carries a tooltip (<title>)
// with its figures; legend keys carry class "key".
// Deterministic: the same inputs give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "sim/analysis/link_usage.hpp"
#include "sim/run/pipeline.hpp"

namespace stepsim::report {

std::string roofline_chart(const run::Result& s, const std::string& id);

struct BreakdownInput {
  std::string label;
  const analysis::StepMetrics* metrics = nullptr;
};
std::string breakdown_chart(const std::vector<BreakdownInput>& runs);

std::string link_heat_chart(const analysis::LinkUsage& u);

std::string memory_chart(const run::Result& s);

// Colours shared by the charts and the page's legends; a kernel class keeps its colour in every
// chart.
std::string kernel_class_colour(const std::string& name);
inline constexpr const char* kComputeColour = "#4e79a7";
inline constexpr const char* kExposedColour = "#e15759";
inline constexpr const char* kBubbleColour = "#bab0ac";
inline constexpr const char* kOtherColour = "#f1ce63";
inline constexpr const char* kOverlapColour = "#b07aa1";
inline constexpr const char* kSyncColour = "#76b7b2";

}  // namespace stepsim::report
