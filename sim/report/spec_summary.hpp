// What a checked file resolves to, in a few lines: the figures a user wants to confirm
// (parameter counts, world size, link rates, the derived parallel layout).
#pragma once

#include <string>

#include "sim/analysis/roofline.hpp"
#include "sim/spec/cluster.hpp"
#include "sim/spec/scenario.hpp"

namespace stepsim::report {

std::string describe(const spec::DeviceSpec& d);
std::string describe(const spec::ClusterSpec& c);
std::string describe(const spec::ModelSpec& m);
// With its roofline (analysis::roofline, which runs every check a simulation would).
std::string describe(const spec::ScenarioSpec& s, const analysis::Roofline& r);

}  // namespace stepsim::report
