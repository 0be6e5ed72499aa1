// The checks of a scenario that its loading leaves to the layers that know the vocabulary
// (config reads any word a registry may hold): each throws engine::UserError at the key's
// file:line with a hint.
#pragma once

#include "sim/spec/scenario.hpp"

namespace stepsim::workload {

// Every precision the training computes in is one the device has a rate for.
void check_precisions(const spec::ScenarioSpec& spec);

}  // namespace stepsim::workload
