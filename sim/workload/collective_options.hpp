// The options a scenario's collectives are planned with (net/collective_plan.hpp): the choice its
// network.collectives fixes for the collective's kind of traffic, the router's top-k and node
// limit, the routed experts and the SMs communication holds. One place, so that the simulation
// and the roofline plan every collective alike.
#pragma once

#include <map>
#include <tuple>

#include "sim/net/collective_cost.hpp"
#include "sim/net/collective_plan.hpp"
#include "sim/spec/scenario.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "sim/workload/step_program.hpp"

namespace stepsim::workload {

// A collective's kind: ep for dispatch/combine; over dp or edp groups, zero for all-gathers and
// reduce-scatters under ZeRO-3 and dp otherwise; tp over tp groups.
spec::TrafficKind traffic_kind(GroupRole group, net::CollectiveOp op, int zero);

// The options for `op` of `kind` over a group of this shape. Throws engine::UserError, located at
// the scenario's network.collectives entry, when the algorithm fixed for the kind does not run
// `op` (a tree for ZeRO-1's reduce-scatters), cannot run this group, or needs what the cluster
// lacks.
net::PlanOptions plan_options(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                              spec::TrafficKind kind, net::CollectiveOp op, net::GroupShape group);

// The shape of a role's group, and whether its GPUs sit at the same local indices on every node
// it spans (net::GroupLayout::uniform), for pipeline rank 0's groups: GPU = rank, node = GPU /
// gpus_per_node. Layouts whose blocks of dp x tp ranks are not whole nodes may give other ranks
// other layouts; their collectives still run rank 0's choice, as one program serves every rank.
net::GroupShape group_shape(const ParallelPlan& plan, GroupRole role);
bool group_uniform(const ParallelPlan& plan, GroupRole role);

// `op` of `bytes` per GPU over the role's group, resolved: its kind, and its options with the
// algorithm, protocol, channels and chunks the scenario fixes or the tuner picks
// (net/tuner.hpp) for the group's shape and layout. Throws as plan_options does.
CollectiveWork make_collective(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                               net::CollectiveOp op, double bytes, GroupRole group);

// make_collective with a memory: a program holds the same collective (a layer's tensor-parallel
// all-reduce, its expert exchange) once per layer and pass, resolved once here.
class CollectiveMaker {
 public:
  CollectiveMaker(const spec::ScenarioSpec& s, const ParallelPlan& plan) : spec_(s), plan_(plan) {}
  const CollectiveWork& operator()(net::CollectiveOp op, double bytes, GroupRole group);

 private:
  const spec::ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  std::map<std::tuple<int, double, int>, CollectiveWork> made_;
};

// The options of the pipeline sends (kind pp).
net::PlanOptions send_options(const spec::ScenarioSpec& s, const ParallelPlan& plan);

}  // namespace stepsim::workload
