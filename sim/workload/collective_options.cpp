#include "sim/workload/collective_options.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/engine/check.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/net/protocol.hpp"
#include "sim/net/tuner.hpp"

namespace stepsim::workload {

spec::TrafficKind traffic_kind(GroupRole group, net::CollectiveOp op, int zero) {
  if (op == net::CollectiveOp::dispatch || op == net::CollectiveOp::combine)
    return spec::TrafficKind::ep;
  if (group == GroupRole::tp) return spec::TrafficKind::tp;
  if (group == GroupRole::ep) return spec::TrafficKind::ep;
  if (group == GroupRole::cp || group == GroupRole::cp_a2a || group == GroupRole::cp_ring)
    return spec::TrafficKind::cp;
  const bool sharded =
      op == net::CollectiveOp::all_gather || op == net::CollectiveOp::reduce_scatter;
  return zero == 3 && sharded ? spec::TrafficKind::zero : spec::TrafficKind::dp;
}

net::PlanOptions plan_options(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                              spec::TrafficKind kind, net::CollectiveOp op, net::GroupShape group) {
  net::PlanOptions o;
  o.bundle = s.bundle;
  const spec::CollectiveChoice& c = s.collectives[static_cast<int>(kind)];
  if (c.algorithm != "auto") {
    const net::AlgorithmDef* a = net::find_algorithm(c.algorithm);
    STEPSIM_CHECK(a, "algorithm names are checked when the scenario is read");
    {
      const std::string key = "network.collectives." + std::string(to_string(kind));
      const std::string what =
          std::string(to_string(kind)) + "'s " + std::string(net::to_string(op)) + " over " +
          std::to_string(group.size) + " GPUs on " + std::to_string(group.nodes()) + " node(s)";
      if (!a->runs(op))
        throw engine::UserError(s.where.at(key), c.algorithm + " does not run " + what,
                                "use auto for " + std::string(to_string(kind)) +
                                    ", or an algorithm that runs " +
                                    std::string(net::to_string(op)));
      if (!a->fits(group, true))
        throw engine::UserError(
            s.where.at(key),
            c.algorithm + " cannot run " + what + ": it needs " + std::string(a->needs),
            "use auto for " + std::string(to_string(kind)));
      if (!net::available(*a, s.cluster))
        throw engine::UserError(s.where.at(key),
                                c.algorithm + " needs a feature " + s.cluster.name +
                                    " does not declare (NVLS or SHARP), for " + what,
                                "use auto for " + std::string(to_string(kind)));
      o.algorithm = c.algorithm;
    }
  }
  o.protocol = c.protocol;
  o.channels = c.channels;
  o.chunks = c.chunks;
  o.top_k = s.model.moe.top_k;
  o.max_nodes = max_target_nodes(s.model.moe, plan.group(GroupRole::ep).nodes());
  if (s.model.moe.experts > 0) o.experts = s.model.moe.experts;
  o.comm_sms = s.parallel.comm_sms;
  return o;
}

namespace {

bool uniform(int size, int stride, int gpn) {
  // Local indices on each node the group visits, in order; uniform when every node has the same.
  std::vector<int> first, current;
  int node = -1;
  for (int i = 0; i <= size; ++i) {
    const int gpu = i * stride;
    if (i == size || gpu / gpn != node) {
      if (node >= 0) {
        if (first.empty())
          first = current;
        else if (current != first)
          return false;
      }
      if (i == size) break;
      node = gpu / gpn;
      current.clear();
    }
    current.push_back(gpu % gpn);
  }
  return true;
}

}  // namespace

bool group_uniform(const ParallelPlan& plan, GroupRole role) {
  const auto [size, stride] = plan.group_of(role);
  // Remembered per shape: the layout search asks it for every collective of every layout, and
  // the walk over a data-parallel group was a tenth of a layout's bound.
  thread_local std::map<std::tuple<int, int, int>, bool> known;
  const auto key = std::make_tuple(size, stride, plan.gpus_per_node);
  const auto it = known.find(key);
  if (it != known.end()) return it->second;
  return known[key] = uniform(size, stride, plan.gpus_per_node);
}

CollectiveWork make_collective(const spec::ScenarioSpec& s, const ParallelPlan& plan,
                               net::CollectiveOp op, double bytes, GroupRole group) {
  CollectiveWork c;
  c.op = op;
  c.bytes = bytes;
  c.group = group;
  c.kind = traffic_kind(group, op, s.parallel.zero);
  const net::GroupShape shape = plan.group(group);
  c.options = plan_options(s, plan, c.kind, op, shape);
  if (shape.size <= 1 || bytes <= 0.0) return c;
  const net::Choice choice =
      net::tune(op, bytes, shape, group_uniform(plan, group), s.cluster, c.options);
  c.options.algorithm = std::string(choice.algorithm->name);
  c.options.protocol = std::string(net::protocol_def(choice.protocol).name);
  c.options.channels = choice.channels;
  c.options.chunks = choice.chunks;
  return c;
}

const CollectiveWork& CollectiveMaker::operator()(net::CollectiveOp op, double bytes,
                                                  GroupRole group) {
  const auto key = std::make_tuple(static_cast<int>(op), bytes, static_cast<int>(group));
  if (auto it = made_.find(key); it != made_.end()) return it->second;
  return made_[key] = make_collective(spec_, plan_, op, bytes, group);
}

net::PlanOptions send_options(const spec::ScenarioSpec& s, const ParallelPlan& plan) {
  return plan_options(s, plan, spec::TrafficKind::pp, net::CollectiveOp::p2p,
                      {2, plan.stage_neighbours_on_same_node() ? 2 : 1});
}

int held_sms(const CollectiveWork& c, const spec::ClusterSpec& cluster) {
  if (c.options.algorithm == "deepep") {
    if (c.options.comm_sms > 0) return c.options.comm_sms;
    return cluster.deepep_sms > 0 ? cluster.deepep_sms : kDeepEpDefaultSms;
  }
  return std::max(1, c.options.channels);
}

int send_sms(const net::PlanOptions& o) {
  return o.channels > 0 ? o.channels : kNcclP2pChannelsPerPeer;
}

int largest_held_sms(const StepProgram& program, const spec::ClusterSpec& cluster) {
  int most = program.plan.pp > 1 ? send_sms(program.send_options) : 0;
  auto visit = [&](const Work& w) {
    for (const CollectiveWork& c : w.collectives) most = std::max(most, held_sms(c, cluster));
  };
  for (const Chain& chain : program.chains)
    for (const Work& w : chain) visit(w);
  for (const auto& rank : program.tail)
    for (const TailWork& t : rank) visit(t.work);
  return most;
}

}  // namespace stepsim::workload
