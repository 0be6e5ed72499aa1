// `stepsim trace summarize`: profiles' GPU time by kernel class, per rank (profile/
// profile_summary.hpp), as text, JSON and CSV.
#pragma once

#include <string>
#include <vector>

#include "sim/profile/profile_compare.hpp"
#include "sim/profile/profile_summary.hpp"
#include "sim/profile/stream_bins.hpp"

namespace stepsim::report {

std::string profile_summary_text(const std::vector<profile::RankSummary>& ranks);
std::string profile_summary_json(const std::vector<profile::RankSummary>& ranks);
// One row per rank and class (the idle time a class of its own, "idle").
std::string profile_summary_csv(const std::vector<profile::RankSummary>& ranks);

// `stepsim trace compare`: each profile against the simulated step's same GPU, `against` naming
// the scenario and the GPU ("scenarios/x.yaml, pipeline rank 3 (GPU 384)").
struct ProfileComparison {
  profile::Comparison c;
  std::string against;
  // For the page (trace_compare_page.hpp): both GPUs' streams over the same time axis.
  profile::BinnedStreams measured_bins, simulated_bins;
};
std::string profile_compare_text(const std::vector<ProfileComparison>& cs);
// A row's ratio for people: "1.000", "2.5e-05", "not simulated" (only the profile has it), "not in
// profile".
std::string ratio_text(const profile::CompareRow& r);
std::string profile_compare_json(const std::vector<ProfileComparison>& cs);
// One row per profile and row: table (class, layer or kernel), label, both times, the ratio.
std::string profile_compare_csv(const std::vector<ProfileComparison>& cs);

}  // namespace stepsim::report
