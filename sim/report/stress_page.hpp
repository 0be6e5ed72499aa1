// A stress campaign (stress/campaign.hpp) as one self-contained HTML page, in the report's style:
//  1. headline: the scenario, the draws, the baseline step, trials survived and lost, the
//     change's min, median, p90, p99 and max;
//  2. distribution: a histogram of the step-time change over the surviving trials (the summary's
//     bins), the median and p90 marked;
//  3. components: the costliest components (trials, lost, mean and max change), a bar each;
//  4. where: the change by where the faults hit, one dimension at a time (search::GroupCost);
//  5. lost: the trials the job does not survive, with their faults and the route they cut.
// Inline SVG and CSS only; deterministic.
#pragma once

#include <string>

#include "sim/search/campaign.hpp"

namespace stepsim::report {

inline constexpr const char* kStressSections[] = {"headline", "distribution", "components", "where",
                                                  "lost"};

std::string stress_page(const search::Campaign& c, const search::Summary& s);

// Shared with the report's stress section (html_report.hpp): the histogram of the surviving
// trials' change, the median and p90 marked (SVG); the `rows` costliest components, a bar each
// (an HTML table).
std::string stress_histogram_svg(const search::Summary& s);
std::string stress_components_table(const search::Summary& s, std::size_t rows);
// The change by where the faults hit: report::shown_groups of every dimension of two positions
// or more (an HTML table).
std::string stress_groups_table(const search::Summary& s);

}  // namespace stepsim::report
