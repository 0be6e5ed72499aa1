// The checks of a scenario that its loading leaves to the layers that know the vocabulary
// (config reads any word a registry may hold): each throws engine::UserError at the key's
// file:line with a hint.
#pragma once

#include "sim/spec/scenario.hpp"

namespace stepsim::workload {

// Every precision the training computes in is one the device has a rate for.
void check_precisions(const spec::ScenarioSpec& spec);

// The words a scenario names from registries: its schedule (workload/schedule/), its collectives'
// algorithms and protocols (net/algorithm/, net/protocol.hpp; an algorithm must run one of its
// traffic kind's operations), and the ops its recompute lists name, its own and its model's
// (ModelCost's op names and groups).
void check_words(const spec::ScenarioSpec& spec);
// The schedule's word alone (make_plan checks it first).
void check_schedule_word(const spec::ScenarioSpec& spec);
// The model's recompute lists alone (a model file checked on its own).
void check_recompute_lists(const spec::ModelSpec& model);

}  // namespace stepsim::workload
