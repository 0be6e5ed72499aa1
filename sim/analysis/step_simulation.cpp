#include "sim/analysis/step_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>

#include "sim/exec/symmetry.hpp"
#include "sim/workload/memory.hpp"

namespace stepsim::analysis {

double estimate_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan) {
  // Per micro-batch and stage: forward and backward items (at most ~6 per layer, plus ZeRO-3
  // gathers), a weight-gradient item per layer, and a pipeline send each way.
  int max_layers = 0;
  for (int n : plan.stage_layers) max_layers = std::max(max_layers, n);
  const double per_chunk =
      6.0 * (max_layers + 2) + (spec.parallel.zero == 3 ? 3.0 * (max_layers + 2) : 0.0);
  return static_cast<double>(plan.micro_batches) * plan.stages *
         (2.0 * per_chunk + max_layers + 2.0 + 2.0) *
         exec::estimate_classes(plan, spec.cluster, spec.exact);
}

void check_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan, double max_ops) {
  const double ops = estimate_ops(spec, plan);
  const int classes = exec::estimate_classes(plan, spec.cluster, spec.exact);
  if (ops > max_ops)
    throw engine::UserError(
        spec.where.at("training.global_batch"),
        "the step would need about " + std::to_string(static_cast<long long>(ops)) +
            " simulated operations (" + std::to_string(plan.micro_batches) + " micro-batches x " +
            std::to_string(plan.stages) + " stages" +
            (classes > 1 ? " x " + std::to_string(classes) + " symmetry classes" : "") +
            "), more than the limit of " + std::to_string(static_cast<long long>(max_ops)),
        std::string("use fewer or larger micro-batches, ") + (spec.exact ? "drop --exact, " : "") +
            "or raise the limit with --max-ops");
}

double estimate_memory_bytes(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan) {
  // Per estimated operation: the graph's op with its dependency lists, its timeline entry, its
  // events and the memory timeline. Measured: the DualPipe scenario grows by 38.6 MB from 15,360
  // to 61,440 sequences (153,600 -> 614,400 estimated operations), 84 B each, before the
  // timeline kept when each piece of a communication op ran (24 B a piece, at most a few per op);
  // kept at over twice that.
  constexpr double kBytesPerOp = 200.0;
  return hw::Topology::estimate_bytes(spec.cluster) + kBytesPerOp * estimate_ops(spec, plan);
}

StepSimulation simulate_step(const spec::ScenarioSpec& spec, const engine::RunControl* control,
                             double max_ops, const workload::ParallelPlan* plan_in) {
  const auto t0 = std::chrono::steady_clock::now();
  StepSimulation s;
  s.roofline = roofline(spec, &s.program, plan_in);
  check_ops(spec, s.roofline.plan, max_ops);
  const workload::ModelCost cost(spec.model, spec.training);
  s.topology = std::make_unique<hw::Topology>(spec.cluster);
  s.build = exec::build_step(s.program, *s.topology, {spec.fidelity, spec.exact}, control);
  s.timeline = exec::execute_step(s.build.graph, control);
  s.metrics = step_metrics(s.build.graph, s.timeline);
  s.model_flops_per_gpu =
      cost.flops_per_token() * s.roofline.tokens_per_step / s.roofline.world_size;

  // Live activations per device over the timeline.
  const auto& g = s.build.graph;
  const auto& plan = s.roofline.plan;
  std::vector<double> stage_bytes(s.program.pipeline.stages);
  for (int st = 0; st < s.program.pipeline.stages; ++st)
    stage_bytes[st] = workload::stage_activation_bytes(spec, plan, cost, st);
  // Each device's own static state: ranks hold different stages (the embedding, the head, MTP
  // blocks), so one rank's static memory never pairs with another's activations.
  std::vector<double> rank_fixed(plan.pp);
  for (int r = 0; r < plan.pp; ++r) {
    const auto m = workload::memory_of_rank(spec, plan, cost, r);
    rank_fixed[r] = m.params + m.grads + m.optimizer + m.buffers;
  }
  s.memory_timeline.resize(g.devices);
  for (int d = 0; d < g.devices; ++d) {
    const double fixed = rank_fixed[g.rank_of(d)];
    // (time, +/- bytes) at the end of each chunk's last compute op.
    std::map<std::tuple<workload::Phase, int, int>, int>
        last;  // (phase, stage, mb) -> last compute op
    for (int op : g.streams[d][static_cast<int>(workload::StreamKind::compute)]) {
      const auto& o = g.ops[op];
      if (o.mb >= 0 && o.phase != workload::Phase::step_end) last[{o.phase, o.stage, o.mb}] = op;
    }
    // A forward's activations are freed when its backward ends, or its weight gradient when the
    // schedule splits them (W still reads them).
    std::vector<std::pair<engine::Time, double>> deltas;
    for (const auto& [key, op] : last) {
      const auto [phase, stage, mb] = key;
      const double b = stage_bytes[stage];
      if (phase == workload::Phase::forward) deltas.push_back({s.timeline.end[op], b});
      if (phase == workload::Phase::backward_weight) deltas.push_back({s.timeline.end[op], -b});
      if (phase == workload::Phase::backward) {
        const auto w = last.find({workload::Phase::weight, stage, mb});
        deltas.push_back({s.timeline.end[w == last.end() ? op : w->second], -b});
      }
    }
    // At one instant, what is freed goes before what is allocated.
    std::sort(deltas.begin(), deltas.end());
    double live = 0.0, peak = 0.0;
    s.memory_timeline[d].push_back({engine::Time(), fixed});
    for (const auto& [t, delta] : deltas) {
      peak = std::max(peak, live += delta);
      s.memory_timeline[d].push_back({t, fixed + live});
    }
    if (fixed + peak > s.peak_memory_bytes) {
      s.peak_memory_bytes = fixed + peak;
      s.peak_memory_device = d;
    }
  }
  const double t = s.metrics.step_s;
  s.figures.tokens_per_s_per_gpu = s.roofline.tokens_per_step / t / s.roofline.world_size;
  s.figures.tflops_per_gpu = s.model_flops_per_gpu / t / 1e12;
  s.figures.mfu =
      s.model_flops_per_gpu / (t * spec.cluster.device.rate(spec::Precision::bf16).peak_flops);
  s.figures.worst_rank = g.info.empty() ? plan.first_gpu(s.metrics.worst_device)
                                        : g.info[s.metrics.worst_device].first_gpu;
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace stepsim::analysis
