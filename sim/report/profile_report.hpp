// `stepsim trace summarize`: profiles' GPU time by kernel class, per rank (profile/
// profile_summary.hpp), as text, JSON and CSV.
#pragma once

#include <string>
#include <vector>

#include "sim/profile/profile_summary.hpp"

namespace stepsim::report {

std::string profile_summary_text(const std::vector<profile::RankSummary>& ranks);
std::string profile_summary_json(const std::vector<profile::RankSummary>& ranks);
// One row per rank and class (the idle time a class of its own, "idle").
std::string profile_summary_csv(const std::vector<profile::RankSummary>& ranks);

}  // namespace stepsim::report
