// `stepsim topo` as text (components, tiers, per-GPU bandwidths, bisection, longest route), JSON
// and CSV (a row per component, link group, tier and figure).
#pragma once

#include <string>

#include "sim/analysis/topology_summary.hpp"

namespace stepsim::report {

std::string topo_text(const analysis::TopologySummary& s);
std::string topo_json(const analysis::TopologySummary& s);
std::string topo_csv(const analysis::TopologySummary& s);

}  // namespace stepsim::report
