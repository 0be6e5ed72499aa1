#include "sim/workload/held_params.hpp"

namespace stepsim::workload {

const LayerCost& layer_of(const ModelCost& cost, int index) {
  if (index == kEmbedding) return cost.embedding();
  if (index == kHead) return cost.head();
  if (index == kMtpHead) return cost.mtp_head();
  return cost.layers()[index];
}

std::vector<int> stage_layer_indices(const ParallelPlan& plan, int stage) {
  std::vector<int> out;
  if (stage == 0) out.push_back(kEmbedding);
  for (int i = 0; i < plan.stage_layers[stage]; ++i)
    out.push_back(plan.stage_first_layer[stage] + i);
  if (stage == plan.stages - 1) {
    out.push_back(kHead);
    for (int i = plan.main_layers; i < plan.main_layers + plan.mtp_layers; ++i) out.push_back(i);
    if (plan.mtp_layers > 0) out.push_back(kMtpHead);
  }
  return out;
}

HeldParams layer_params(const ParallelPlan& plan, const ModelCost& cost, int layer) {
  const auto& l = layer_of(cost, layer);
  return {(l.params() - l.routed_params()) / plan.tp,
          l.routed_params() * plan.expert_slots_per_expert / plan.ep};
}

HeldParams op_params(const ParallelPlan& plan, const OpCost& op) {
  if (op.routed_expert) return {0.0, op.params * plan.expert_slots_per_expert / plan.ep};
  return {op.params / plan.tp, 0.0};
}

HeldParams stage_params(const ParallelPlan& plan, const ModelCost& cost, int stage) {
  HeldParams h;
  for (int li : stage_layer_indices(plan, stage)) {
    const HeldParams l = layer_params(plan, cost, li);
    h.dense += l.dense;
    h.routed += l.routed;
  }
  return h;
}

HeldParams held_params(const ParallelPlan& plan, const ModelCost& cost, int device) {
  HeldParams h;
  for (const auto& ss : plan.device_stages[device]) {
    const HeldParams s = stage_params(plan, cost, ss.stage);
    h.dense += s.dense;
    h.routed += s.routed;
  }
  return h;
}

}  // namespace stepsim::workload
