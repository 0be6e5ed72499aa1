// `stepsim trace compare --html`: a page holding, per profile, its GPU's streams above the
// simulated step's same GPU, on one time axis from each side's first GPU event, each stream a
// lane coloured by the kernel class that ran longest in each bin (profile/stream_bins.hpp; paler
// where the stream was busy for less of the bin), a colour per class shared by both sides; then
// the class table of the text report. The same comparison gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "sim/report/profile_report.hpp"

namespace stepsim::report {

// The bins a lane is drawn in (one every two pixels of the plot's width).
inline constexpr int kCompareBins = 600;

std::string trace_compare_page(const std::vector<ProfileComparison>& cs);

}  // namespace stepsim::report
