#include "sim/run/step_simulation.hpp"

#include <algorithm>
#include <chrono>

#include "sim/exec/symmetry.hpp"

namespace stepsim::run {

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
  s.roofline = analysis::roofline(spec, &s.program, plan_in);
  check_ops(spec, s.roofline.plan, max_ops);
  s.topology = std::make_shared<const hw::Topology>(spec.cluster);
  s.build = exec::build_step(s.program, *s.topology,
                             {spec.fidelity, spec.exact, true, estimate_ops(spec, s.roofline.plan)},
                             control);
  s.timeline = exec::execute_step(s.build.graph, control);
  measure_step(s, spec);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

void measure_step(StepSimulation& s, const spec::ScenarioSpec& spec) {
  const workload::ModelCost cost(spec.model, spec.training);
  s.metrics = analysis::step_metrics(s.build.graph, s.timeline);
  s.model_flops_per_gpu =
      cost.flops_per_token() * s.roofline.tokens_per_step / s.roofline.world_size;

  s.memory = analysis::memory_timeline(s.program, s.build.graph, s.timeline);
  s.figures = analysis::step_figures(s.metrics.step_s, s.roofline.tokens_per_step,
                                     s.roofline.world_size, s.model_flops_per_gpu,
                                     spec.cluster.device.rate(spec::Precision::bf16).peak_flops);
  const auto& g = s.build.graph;
  s.figures.worst_rank =
      g.info.empty() ? s.roofline.plan.first_gpu(s.metrics.worst_device)
                     : g.info[s.metrics.worst_device].first_gpu - s.roofline.plan.gpu_offset;
}

}  // namespace stepsim::run
