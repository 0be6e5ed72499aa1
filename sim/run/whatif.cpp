#include "sim/run/whatif.hpp"

#include <chrono>

namespace stepsim::run {

namespace {

constexpr std::uint32_t bit_of(Mechanism m) {
  return std::uint32_t{1} << static_cast<int>(m);
}

bool has(std::uint32_t set, Mechanism m) {
  return (set & bit_of(m)) != 0;
}

// The step with the mechanisms of `off` switched off: its metrics.
analysis::StepMetrics simulate_without(const spec::ScenarioSpec& spec, std::uint32_t off,
                                       const Limits& limits, const engine::RunControl* control) {
  const spec::ScenarioSpec s = with_mechanisms_off(spec, off);
  const Bounded b{prepare(s, limits), {}};
  const Simulation sim =
      simulate(b, std::make_shared<const hw::Topology>(s.cluster), control, idealisation(off));
  return analysis::step_metrics(sim.build.graph, sim.timeline);
}

// The mechanisms whose switch changes something in this scenario, from its inputs and the graph
// it runs as it is.
std::uint32_t active_mechanisms(const spec::ScenarioSpec& spec, const exec::StepGraph& g) {
  std::uint32_t active = 0;
  const spec::DeviceSpec& dev = spec.cluster.device;
  if (dev.launch_overhead_s > 0.0 || dev.kernel_gap_s > 0.0 || spec.software.host_per_op_s > 0.0)
    active |= bit_of(Mechanism::kernel_overheads);
  bool communicates = false, holds_sms = false;
  for (const exec::StepOp& op : g.ops)
    if (workload::is_communication(op.kind) && op.duration > engine::Time()) {
      communicates = true;
      holds_sms = holds_sms || op.demand.sms > 0;
    }
  if (communicates) {
    active |= bit_of(Mechanism::communication);
    if (!g.link_capacity.empty()) active |= bit_of(Mechanism::link_sharing);
    if (g.hbm_capacity > 0.0) active |= bit_of(Mechanism::hbm_sharing);
    if (g.sms > 0 && holds_sms) active |= bit_of(Mechanism::sm_sharing);
    if (g.comm_contention()) active |= bit_of(Mechanism::comm_contention);
  }
  const spec::VariabilitySpec& v = spec.cluster.variability;
  if (v.gpu_spread > 0.0 || v.kernel_jitter > 0.0) active |= bit_of(Mechanism::variability);
  if (spec.model.moe.enabled && spec.model.moe.routing.kind != spec::RoutingKind::balanced)
    active |= bit_of(Mechanism::expert_skew);
  if (!spec.cluster.faults.empty()) active |= bit_of(Mechanism::faults);
  return active;
}

}  // namespace

spec::ScenarioSpec with_mechanisms_off(const spec::ScenarioSpec& spec, std::uint32_t off) {
  spec::ScenarioSpec s = spec;
  if (has(off, Mechanism::kernel_overheads)) {
    s.cluster.device.launch_overhead_s = 0.0;
    s.cluster.device.kernel_gap_s = 0.0;
    s.software.host_per_op_s = 0.0;
  }
  if (has(off, Mechanism::comm_contention)) s.cluster.device.comm_beside_compute = {};
  if (has(off, Mechanism::variability)) {
    s.cluster.variability.gpu_spread = 0.0;
    s.cluster.variability.kernel_jitter = 0.0;
  }
  if (has(off, Mechanism::expert_skew)) {
    s.model.moe.routing.kind = spec::RoutingKind::balanced;
    s.model.moe.routing.shares.clear();
  }
  if (has(off, Mechanism::faults)) s.cluster.faults.clear();
  return s;
}

exec::Idealisation idealisation(std::uint32_t off) {
  return {.free_communication = has(off, Mechanism::communication),
          .no_link_sharing = has(off, Mechanism::link_sharing),
          .no_hbm_sharing = has(off, Mechanism::hbm_sharing),
          .no_sm_sharing = has(off, Mechanism::sm_sharing)};
}

WhatIf whatif(const spec::ScenarioSpec& spec, const WhatIfOptions& options,
              const engine::RunControl* control) {
  const auto t0 = std::chrono::steady_clock::now();
  WhatIf w;
  w.bounded = bound(prepare(spec, options.limits));
  // The step as it is: its time and what it has to switch off. Its metrics stand for the all-off
  // step when nothing is active; its graph is freed before the other steps are simulated.
  analysis::StepMetrics all_off;
  std::uint32_t active = 0;
  {
    const Simulation full =
        simulate(w.bounded, std::make_shared<const hw::Topology>(spec.cluster), control);
    all_off = analysis::step_metrics(full.build.graph, full.timeline);
    active = active_mechanisms(spec, full.build.graph);
  }
  w.step_s = all_off.step_s;
  w.scenario_bound_s = w.bounded.roofline.bound_s;

  std::vector<Mechanism> players;
  for (int i = 0; i < kMechanismCount; ++i)
    if (active >> i & 1u) players.push_back(static_cast<Mechanism>(i));
  const int m = static_cast<int>(players.size());
  const analysis::AttributionScheme scheme = options.scheme.value_or(
      m <= WhatIfOptions::kExactUpTo ? analysis::AttributionScheme::exact
                                     : analysis::AttributionScheme::pairwise);
  const std::uint32_t everyone = (std::uint32_t{1} << m) - 1;
  w.attribution = analysis::attribute(m, scheme, [&](std::uint32_t on) {
    if (on == everyone) return w.step_s;
    std::uint32_t off = 0;
    for (int i = 0; i < m; ++i)
      if (!(on >> i & 1u)) off |= bit_of(players[static_cast<std::size_t>(i)]);
    analysis::StepMetrics metrics = simulate_without(spec, off, options.limits, control);
    if (on == 0) all_off = metrics;
    return metrics.step_s;
  });
  w.all_off_s = w.attribution.all_off;

  // The waterfall starts from the bound of the step with every mechanism off: skewed routing or
  // a fault can change the program the bound folds.
  std::uint32_t off = 0;
  for (Mechanism p : players) off |= bit_of(p);
  w.base = off == 0 ? w.bounded.roofline
                    : bound(prepare(with_mechanisms_off(spec, off), options.limits)).roofline;
  w.bound_s = w.base.bound_s;
  const analysis::Breakdown& rank = all_off.per_rank[static_cast<std::size_t>(w.base.device)];
  w.schedule_s = rank.bubble + rank.other_idle;
  w.limit_s = w.base.compute_s - w.bound_s;
  w.kernels_s = w.all_off_s - w.base.compute_s - w.schedule_s;
  for (int i = 0; i < kMechanismCount; ++i) w.terms.push_back({static_cast<Mechanism>(i)});
  for (int i = 0; i < m; ++i) {
    MechanismTerm& t = w.terms[static_cast<std::size_t>(players[static_cast<std::size_t>(i)])];
    t.active = true;
    t.seconds = w.attribution.share[static_cast<std::size_t>(i)];
  }
  w.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return w;
}

}  // namespace stepsim::run
