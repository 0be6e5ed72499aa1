#include "sim/workload/memory.hpp"

#include <algorithm>

#include "sim/workload/context_parallel.hpp"
#include "sim/workload/zero3_placement.hpp"

namespace stepsim::workload {

using spec::bytes_per_element;

double optimizer_step_bytes(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                            const ModelCost& cost, int device) {
  const auto& pr = spec.training.precision;
  const HeldParams held = held_params(plan, cost, device);
  const double local = spec.parallel.zero >= 1
                           ? held.dense / plan.replicas() + held.routed / plan.edp
                           : held.dense + held.routed;
  const double per_param = bytes_per_element(pr.params) + bytes_per_element(pr.grads) +
                           (pr.master == pr.params ? 0.0 : bytes_per_element(pr.master)) +
                           2.0 * bytes_per_element(pr.optimizer);
  return 2.0 * local * per_param;
}

double stage_activation_bytes(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                              const ModelCost& cost, int stage) {
  double per_token = 0.0;
  for (int li : stage_layer_indices(plan, stage))
    per_token += li < 0 ? layer_of(cost, li).input_bytes
                        : cost.recompute(cost.layers()[li], spec.training.recompute).saved_bytes;
  return per_token * plan.tokens_per_micro_batch / plan.tp;
}

double cp_buffers(const spec::ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost) {
  if (plan.cp <= 1) return 0.0;
  const double seq = spec.training.seq_len, sequences = spec.training.micro_batch;
  const CpLayout cp = cp_layout(plan);
  double most = 0.0;
  const OpCost* last = nullptr;  // layers alike repeat their attention: its bytes once
  for (const LayerCost& l : cost.layers())
    for (const OpCost& op : l.ops) {
      if (op.cls != OpClass::attention_core) continue;
      if (last && op.heads == last->heads && op.kv_heads == last->kv_heads &&
          op.qk_dim == last->qk_dim && op.v_dim == last->v_dim && op.act_bytes == last->act_bytes)
        continue;
      last = &op;
      most = std::max(most, cp_buffer_bytes(op, seq, sequences, plan.tp, cp));
    }
  return most;
}

namespace {

// memory_of_rank with the context-parallel buffers given (the same on every rank).
MemoryBreakdown rank_memory(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                            const ModelCost& cost, int device, double cp_bytes) {
  const auto& pr = spec.training.precision;
  const int zero = spec.parallel.zero;
  const HeldParams h = held_params(plan, cost, device);
  const double pb = bytes_per_element(pr.params), gb = bytes_per_element(pr.grads);
  const double mb = pr.master == pr.params ? 0.0 : bytes_per_element(pr.master);
  const double ob = 2.0 * bytes_per_element(pr.optimizer);
  // Divisor applied to each parameter kind for state sharded at this ZeRO stage.
  auto sharded = [&](int from_stage, double bytes) {
    const double dense = zero >= from_stage ? h.dense / plan.replicas() : h.dense;
    const double routed = zero >= from_stage ? h.routed / plan.edp : h.routed;
    return (dense + routed) * bytes;
  };
  MemoryBreakdown mem;
  mem.device = device;
  mem.capacity = spec.cluster.device.memory_bytes;
  mem.params = sharded(3, pb);
  mem.grads = sharded(2, gb);
  mem.optimizer = sharded(1, mb + ob);

  if (zero == 3) mem.buffers = zero3_buffer_bytes(spec, plan, cost, h);
  mem.buffers += cp_bytes;

  // Activations: in-flight micro-batches times the largest stage this device runs.
  double stage_bytes = 0.0;
  for (const auto& ss : plan.device_stages[device])
    stage_bytes = std::max(stage_bytes, stage_activation_bytes(spec, plan, cost, ss.stage));
  mem.activations = stage_bytes * peak_in_flight_micro_batches(spec, plan, device);
  return mem;
}

}  // namespace

MemoryBreakdown memory_of_rank(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                               const ModelCost& cost, int device) {
  return rank_memory(spec, plan, cost, device, cp_buffers(spec, plan, cost));
}

MemoryBreakdown memory_per_gpu(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                               const ModelCost& cost) {
  MemoryBreakdown worst;
  const double cp_bytes = cp_buffers(spec, plan, cost);
  for (int d = 0; d < plan.pp; ++d) {
    const MemoryBreakdown m = rank_memory(spec, plan, cost, d, cp_bytes);
    if (d == 0 || m.total() > worst.total()) worst = m;
  }
  return worst;
}

}  // namespace stepsim::workload
