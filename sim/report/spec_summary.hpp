// What a checked file resolves to, in a few lines: the figures a user wants to confirm
// (parameter counts, world size, link rates, the derived parallel layout).
#pragma once

#include <string>

#include "sim/run/pipeline.hpp"

namespace stepsim::report {

std::string describe(const spec::DeviceSpec& d);
std::string describe(const spec::ClusterSpec& c);
// A model file alone, with its figures at the training shape `t`.
std::string describe(const spec::ModelSpec& m, const workload::ModelFigures& figures,
                     const spec::TrainingSpec& t);
// A scenario, prepared and bounded (every check a simulation runs).
std::string describe(const run::Bounded& b);

}  // namespace stepsim::report
