// What a GPU of a layout holds of the model: the layers of each stage (the embedding on the first,
// the head, the MTP blocks and their head on the last) and their parameters per GPU, split by kind:
// non-expert ones over tp, routed experts over ep (experts are not split by tp; a GPU's redundant
// expert slots each hold a whole expert, ParallelPlan::expert_slots_per_expert), before any ZeRO
// sharding.
#pragma once

#include <vector>

#include "sim/workload/model_cost.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::workload {

// Parameters held by one pipeline rank (all its stages), split by kind, per GPU before sharding.
struct HeldParams {
  double dense = 0.0;   // replicated over dp, split by tp
  double routed = 0.0;  // replicated over edp, split by ep
  double total() const { return dense + routed; }
};
HeldParams held_params(const ParallelPlan& plan, const ModelCost& cost, int device);
HeldParams stage_params(const ParallelPlan& plan, const ModelCost& cost, int stage);
HeldParams layer_params(const ParallelPlan& plan, const ModelCost& cost, int layer);
HeldParams op_params(const ParallelPlan& plan, const OpCost& op);

// kEmbedding, kHead, kMtpHead (layer_index.hpp); layers from `main_layers` on are MTP blocks.
const LayerCost& layer_of(const ModelCost& cost, int index);
// In order: the embedding on the first stage; the head, then the MTP blocks and their head on the
// last.
std::vector<int> stage_layer_indices(const ParallelPlan& plan, int stage);

}  // namespace stepsim::workload
