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
#include "sim/workload/program.hpp"

namespace stepsim::workload {

// A collective's kind: ep for dispatch/combine; over dp or edp groups, zero for all-gathers and
// reduce-scatters under ZeRO-3 and dp otherwise; tp over tp groups; cp over context-parallel
// groups.
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

// SMs a communication kernel holds on each GPU it runs on, for as long as it runs, whatever its
// pace (exec/step_executor.hpp): NCCL launches one CTA per channel, each resident on an SM until
// the collective ends (NVIDIA/nccl src/enqueue.cc, ncclLaunchKernel: grid = channelCount);
// DeepEP's dispatch and combine run on the scenario's comm_sms, else on the SMs its rate on the
// cluster was measured with (deepep: {sms}), else on DeepEP's default (deep_ep/buffer.py:
// Buffer.num_sms = 20).
int held_sms(const CollectiveWork& c, const spec::ClusterSpec& cluster);
constexpr int kDeepEpDefaultSms = 20;
// A pipeline send, on each of its two GPUs: the channels network.collectives.pp sets, else
// NCCL's channels per peer, 2 where any peer is across the network (src/graph/paths.cc,
// ncclTopoComputeP2pChannels: the minimum over peers of NCHANNELS_PER_NET_PEER = 2 and
// 2 per NVLink).
int send_sms(const net::PlanOptions& send_options);
constexpr int kNcclP2pChannelsPerPeer = 2;
// The most SMs one communication kernel of the program holds (its collectives and, with a
// pipeline, its sends).
int largest_held_sms(const StepProgram& program, const spec::ClusterSpec& cluster);

}  // namespace stepsim::workload
