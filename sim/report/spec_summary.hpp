// What a checked file resolves to, in a few lines: the figures a user wants to confirm
// (parameter counts, world size, link rates, the derived parallel layout).
#pragma once

#include <string>

#include "sim/run/pipeline.hpp"

namespace stepsim::report {

// A device's communication-beside-compute factors: "x1.30 (compute-bound kernels), x1.10
// (memory-bound) (its source)".
std::string describe(const spec::CommBesideCompute& c);
std::string describe(const spec::DeviceSpec& d);
std::string describe(const spec::ClusterSpec& c);
// A model file alone, with its figures at the training shape `t`.
std::string describe(const spec::ModelSpec& m, const workload::ModelFigures& figures,
                     const spec::TrainingSpec& t);
// A scenario, prepared and bounded (every check a simulation runs).
std::string describe(const run::Bounded& b);

}  // namespace stepsim::report
