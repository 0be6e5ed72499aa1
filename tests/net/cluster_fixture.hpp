// A shipped cluster file loaded for network tests, with --set style overrides, and one
// collective's time on it.
#pragma once

#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "tests/test_support.hpp"

namespace stepsim::test {

inline spec::ClusterSpec cluster(const char* file, const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> o;
  for (const auto& s : sets) o.push_back(config::parse_override(s));
  return config::load_cluster(source_path(file), o);
}

// Seconds `op` of `bytes` takes over `group` (net::parse_group's words) on the flow network,
// bundled or transfer by transfer.
inline double collective_seconds(const hw::Topology& t, net::CollectiveOp op, double bytes,
                                 const std::string& group, bool bundle = true) {
  net::PlanOptions o;
  o.bundle = bundle;
  const auto g = net::parse_group(group, t, "test");
  return net::run_collective(net::plan_collective(op, bytes, g, t, o), bytes,
                             static_cast<int>(g.size()), t, hw::Fidelity::flow)
      .time.seconds();
}

// `op` of `bytes` over `group` on the flow network, by the algorithm named or the tuner's choice.
inline net::CollectiveResult run_planned(const hw::Topology& t, net::CollectiveOp op, double bytes,
                                         const std::string& group,
                                         const std::string& algorithm = "auto") {
  net::PlanOptions o;
  o.algorithm = algorithm;
  const auto g = net::parse_group(group, t, "test");
  return net::run_collective(net::plan_collective(op, bytes, g, t, o), bytes,
                             static_cast<int>(g.size()), t, hw::Fidelity::flow);
}

// Whether two transfers are alike in every field (a spread compared by its shares).
inline bool same_transfer(const net::Transfer& x, const net::Transfer& y) {
  const bool spread = x.spread && y.spread ? *x.spread == *y.spread : !x.spread && !y.spread;
  return x.src == y.src && x.dst == y.dst && x.bytes == y.bytes &&
         x.multiplicity == y.multiplicity && x.core_weight == y.core_weight &&
         x.agg_weight == y.agg_weight && x.payload == y.payload && spread;
}

}  // namespace stepsim::test
