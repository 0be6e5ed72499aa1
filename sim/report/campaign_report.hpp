// A stress campaign's result as text, JSON and CSV (campaign.hpp gives the figures).
//  text: the draws with their value ranges, the baseline step, the survived count, the
//    distribution of the step-time change (min, median, p90, p99, max), a histogram, the ten
//    costliest components, the change by where the faults hit (shown_groups of each dimension of
//    two positions or more), and the trials the job does not survive (the first ten);
//  JSON: the same, with every component, every group and every trial;
//  CSV: one row per trial: trial, faults, step_s, change, outcome (survived, lost, error), detail.
// A trial is numbered from 0, as --trial N and --write-trial N take it.
// Deterministic: the same campaign gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "sim/format/json_writer.hpp"
#include "sim/search/campaign.hpp"

namespace stepsim::report {

std::string campaign_text(const search::Campaign& c, const search::Summary& s);
std::string campaign_json(const search::Campaign& c, const search::Summary& s);
std::string campaign_csv(const search::Campaign& c);

// One trial alone (stress --trial N): its faults, its step and its change against the baseline;
// JSON: the faults as objects (kind, the indices of its place, factor or slowdown); CSV: one row
// as the campaign's.
std::string trial_text(const search::TrialRun& t);
std::string trial_json(const search::TrialRun& t);
std::string trial_csv(const search::TrialRun& t);

// The groups of one dimension (search::kGroupDimensions) that the text and the pages show: all of
// a dimension of at most 2 x kShownGroups positions, else the kShownGroups of the most lost
// trials, then the largest mean change; `in_all` is set to the dimension's positions.
inline constexpr std::size_t kShownGroups = 8;
std::vector<const search::GroupCost*> shown_groups(const search::Summary& s,
                                                   const std::string& dimension,
                                                   std::size_t& in_all);

// A fault as a JSON object: kind, its place's indices (node, nic, plane, leaf, spine, gpu: those
// of its target), factor (degrade kinds) or slowdown (stragglers), and its text.
void fault_json(format::JsonWriter& j, const spec::FaultSpec& f);

// The draws with their value ranges: "1 nic_down, 2 straggler (slowdown 1.1-2)".
std::string draws_text(const std::vector<search::FaultDraw>& draws);
// "+12.30%": a relative change as a signed percentage; "0.00%" within the rounding.
std::string percent(double change);
// The `bins` + 1 edges of a histogram of changes over [lo, hi], as percent() writes them, or with
// more decimals where the bins are narrower than 0.01 %: neighbouring edges never read the same.
std::vector<std::string> histogram_edges(double lo, double hi, int bins);
// The trial's faults for people: "NIC 3 of node 12 down; GPU 5 computes 1.30x slower".
std::string faults_text(const std::vector<spec::FaultSpec>& faults);

}  // namespace stepsim::report
