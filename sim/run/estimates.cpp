#include "sim/run/estimates.hpp"

#include <algorithm>

#include "sim/exec/symmetry.hpp"
#include "sim/hw/topology.hpp"
#include "sim/spec/units.hpp"

namespace stepsim::run {

namespace {

std::atomic<long long> g_estimates{0};
constexpr double kBytesPerOp = 200.0;

}  // namespace

Estimates estimate(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan,
                   const Outputs& outputs) {
  ++g_estimates;
  Estimates e;
  int max_layers = 0;
  for (int n : plan.stage_layers) max_layers = std::max(max_layers, n);
  const double per_chunk =
      6.0 * (max_layers + 2) + (spec.parallel.zero == 3 ? 3.0 * (max_layers + 2) : 0.0);
  e.classes = exec::estimate_classes(plan, spec.cluster, spec.exact);
  e.ops = static_cast<double>(plan.micro_batches) * plan.stages *
          (2.0 * per_chunk + max_layers + 2.0 + 2.0) * e.classes;
  e.memory_bytes = hw::Topology::estimate_bytes(spec.cluster) + kBytesPerOp * e.ops;
  const double shown = outputs.trace_ranks > 0 ? outputs.trace_ranks : plan.pp;
  e.trace_events = e.ops * shown / plan.pp * outputs.trace_events_per_op;
  e.output_bytes = e.trace_events * outputs.trace_bytes_per_event + e.ops * outputs.bytes_per_op;
  return e;
}

void check_memory(double need, double limit, const std::string& what, const std::string& hint) {
  if (limit <= 0.0 || need <= limit) return;
  throw OverMemory(engine::UserError({"--max-memory", 0, 0},
                                     what + " would need about " +
                                         spec::format_quantity(need, spec::Dimension::bytes) +
                                         " of memory, more than the limit of " +
                                         spec::format_quantity(limit, spec::Dimension::bytes),
                                     hint + ", or raise --max-memory"),
                   need);
}

long long estimates_made() {
  return g_estimates.load();
}

}  // namespace stepsim::run
