#include "sim/run/pipeline.hpp"

#include <chrono>

#include "sim/workload/checks.hpp"

namespace stepsim::run {

namespace {

std::string count(double n) {
  return std::to_string(static_cast<long long>(n));
}

// The step graph would exceed --max-ops.
void check_ops(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan,
               const Estimates& e, double max_ops) {
  if (max_ops <= 0.0 || e.ops <= max_ops) return;
  throw engine::UserError(
      spec.where.at("training.global_batch"),
      "the step would need about " + count(e.ops) + " simulated operations (" +
          std::to_string(plan.micro_batches) + " micro-batches x " + std::to_string(plan.stages) +
          " stages" +
          (e.classes > 1 ? " x " + std::to_string(e.classes) + " symmetry classes" : "") +
          "), more than the limit of " + count(max_ops),
      std::string("use fewer or larger micro-batches, ") + (spec.exact ? "drop --exact, " : "") +
          "or raise the limit with --max-ops");
}

void check_trace(const Estimates& e, const Outputs& o) {
  if (o.trace_events_per_op <= 0.0 || e.trace_events <= o.max_trace_events) return;
  throw engine::UserError({"--trace", 0, 0},
                          "the trace would hold about " + count(e.trace_events) +
                              " events, more than the limit of " + count(o.max_trace_events),
                          "select pipeline ranks with --trace-ranks, use --trace-detail layer, or "
                          "raise --max-trace-events");
}

// The program lays out every chunk of the step: refuse one too large to hold. About 90 B a chunk
// while the program is built (the schedule's instruction, the program's), so 0.4 GB at most; a
// step the simulation would accept (--max-ops) has fewer.
void check_program_size(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan) {
  constexpr double kMaxChunks = 4e6;
  const double chunks = static_cast<double>(plan.micro_batches) * plan.stages * 3.0;
  if (chunks > kMaxChunks)
    throw engine::UserError(
        spec.where.at("training.global_batch"),
        "the step has " + std::to_string(plan.micro_batches) + " micro-batches x " +
            std::to_string(plan.stages) + " stages, about " + count(chunks) +
            " chunks of work to lay out, more than the limit of " + count(kMaxChunks),
        "use fewer or larger micro-batches (training.micro_batch)");
}

}  // namespace

Prepared prepare(const spec::ScenarioSpec& spec, const Limits& limits,
                 const workload::ParallelPlan* plan) {
  Prepared p;
  workload::check_words(spec);
  workload::ParallelPlan layout = plan ? *plan : workload::make_plan(spec);
  p.estimates = estimate(spec, layout, limits.outputs);
  check_ops(spec, layout, p.estimates, limits.max_ops);
  check_trace(p.estimates, limits.outputs);
  check_memory(limits.memory_before + p.estimates.memory_bytes + p.estimates.output_bytes,
               limits.max_memory, limits.memory_what, limits.memory_hint);
  workload::check_precisions(spec);
  check_program_size(spec, layout);
  const workload::ModelCost cost(spec.model, spec.training);
  p.program = workload::build_program(spec, layout, cost);
  p.model = cost.figures();
  p.memory = workload::memory_per_gpu(spec, p.program.plan, cost);
  p.tokens_per_step = static_cast<double>(spec.training.global_batch) * spec.training.seq_len;
  p.spec = spec;
  return p;
}

Bounded bound(Prepared prepared) {
  Bounded b{std::move(prepared), {}};
  b.roofline = analysis::roofline(b.prepared.program, b.prepared.spec.cluster);
  return b;
}

Simulation simulate(const Bounded& b, std::shared_ptr<const hw::Topology> topology,
                    const engine::RunControl* control, const exec::Idealisation& ideal) {
  const spec::ScenarioSpec& spec = b.spec();
  Simulation s;
  s.topology = std::move(topology);
  s.build =
      exec::build_step(b.prepared.program, *s.topology,
                       {spec.fidelity, spec.exact, true, b.prepared.estimates.ops, ideal}, control);
  s.timeline = exec::execute_step(s.build.graph, control);
  return s;
}

Result measure(Bounded b, Simulation s) {
  Result r;
  static_cast<Bounded&>(r) = std::move(b);
  static_cast<Simulation&>(r) = std::move(s);
  const Prepared& p = r.prepared;
  const auto& g = r.build.graph;
  r.metrics = analysis::step_metrics(g, r.timeline);
  r.model_flops_per_gpu = p.model.flops_per_token * p.tokens_per_step / p.plan().world;
  r.memory = analysis::memory_timeline(p.program, g, r.timeline);
  const spec::DeviceSpec& dev = p.spec.cluster.device;
  r.figures =
      analysis::step_figures(r.metrics.step_s, p.tokens_per_step, p.plan().world,
                             r.model_flops_per_gpu, dev.rate(spec::Precision::bf16).peak_flops);
  r.figures.worst_rank = g.info.empty()
                             ? p.plan().first_gpu(r.metrics.worst_device)
                             : g.info[r.metrics.worst_device].first_gpu - p.plan().gpu_offset;
  const hw::TableKernelModel kernels(dev);
  r.kernel_classes = analysis::kernel_classes(p.program, kernels, r.roofline.device);
  r.kernel_times = analysis::kernel_times(p.program, kernels);
  return r;
}

Result complete(Prepared prepared, const engine::RunControl* control) {
  const auto t0 = std::chrono::steady_clock::now();
  Bounded b = bound(std::move(prepared));
  auto topology = std::make_shared<const hw::Topology>(b.spec().cluster);
  Simulation s = simulate(b, std::move(topology), control);
  Result r = measure(std::move(b), std::move(s));
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

Result simulate_step(const spec::ScenarioSpec& spec, const Limits& limits,
                     const engine::RunControl* control, const workload::ParallelPlan* plan) {
  return complete(prepare(spec, limits, plan), control);
}

}  // namespace stepsim::run
