// What a checked file resolves to, in a few lines: the figures a user wants to confirm
// (parameter counts, world size, link rates, the derived parallel layout).
#pragma once

#include <string>

#include "sim/analysis/roofline.hpp"
#include "sim/hw/cluster_spec.hpp"
#include "sim/workload/scenario_spec.hpp"

namespace stepsim::report {

std::string describe(const hw::DeviceSpec& d);
std::string describe(const hw::ClusterSpec& c);
std::string describe(const workload::ModelSpec& m);
// With its roofline (analysis::roofline, which runs every check a simulation would).
std::string describe(const workload::ScenarioSpec& s, const analysis::Roofline& r);

}  // namespace stepsim::report
