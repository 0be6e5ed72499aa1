// `stepsim kernels` as text, JSON and CSV: the listing of analysis/kernel_listing.hpp.
#pragma once

#include <string>
#include <vector>

#include "sim/analysis/kernel_listing.hpp"

namespace stepsim::report {

std::string kernels_text(const analysis::KernelListing& k);
std::string kernels_json(const analysis::KernelListing& k);
std::string kernels_csv(const analysis::KernelListing& k);

}  // namespace stepsim::report
