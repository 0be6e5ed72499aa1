// The options a scenario's collectives are planned with (net/collective_plan.hpp): the choice its
// network.collectives fixes for the collective's kind of traffic, the router's top-k and node
// limit, the routed experts and the SMs communication holds. One place, so that the simulation
// and the roofline plan every collective alike.
#pragma once

#include "sim/net/collective_cost.hpp"
#include "sim/net/collective_plan.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "sim/workload/scenario_spec.hpp"
#include "sim/workload/step_program.hpp"

namespace stepsim::workload {

// A collective's kind: ep for dispatch/combine; over dp or edp groups, zero for all-gathers and
// reduce-scatters under ZeRO-3 and dp otherwise; tp over tp groups.
TrafficKind traffic_kind(GroupRole group, net::CollectiveOp op, int zero);

// The options for `op` of `kind` over a group of this shape. Throws engine::UserError, located at
// the scenario's network.collectives entry, when the algorithm fixed for the kind does not run
// `op` (a tree for ZeRO-1's reduce-scatters), cannot run this group, or needs what the cluster
// lacks.
net::PlanOptions plan_options(const ScenarioSpec& s, const ParallelPlan& plan, TrafficKind kind,
                              net::CollectiveOp op, net::GroupShape group);

}  // namespace stepsim::workload
