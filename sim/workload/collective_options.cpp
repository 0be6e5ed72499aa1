#include "sim/workload/collective_options.hpp"

#include "sim/engine/check.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::workload {

TrafficKind traffic_kind(GroupRole group, net::CollectiveOp op, int zero) {
  if (op == net::CollectiveOp::dispatch || op == net::CollectiveOp::combine) return TrafficKind::ep;
  if (group == GroupRole::tp) return TrafficKind::tp;
  if (group == GroupRole::ep) return TrafficKind::ep;
  const bool sharded =
      op == net::CollectiveOp::all_gather || op == net::CollectiveOp::reduce_scatter;
  return zero == 3 && sharded ? TrafficKind::zero : TrafficKind::dp;
}

net::PlanOptions plan_options(const ScenarioSpec& s, const ParallelPlan& plan, TrafficKind kind,
                              net::CollectiveOp op, net::GroupShape group) {
  net::PlanOptions o;
  const CollectiveChoice& c = s.collectives[static_cast<int>(kind)];
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
  o.max_nodes = max_target_nodes(s.model.moe, plan.ep_group().nodes());
  if (s.model.moe.experts > 0) o.experts = s.model.moe.experts;
  o.comm_sms = s.parallel.comm_sms;
  return o;
}

}  // namespace stepsim::workload
