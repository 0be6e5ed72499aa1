// One collective on a cluster's network at several sizes, nccl-tests style (`stepsim
// collective`): each size planned (net/collective_plan.hpp) and run alone on a fresh fabric
// (net/collective_runner.hpp), with its sequential steps and its latency, the same choice
// (algorithm, protocol, channels, chunks) run on one byte: the time no bandwidth shortens.
// Refused up front: a group the operation cannot run on, and work whose estimated memory (the
// topology, 400 B per planned transfer: an unbundled world all-to-all on 2048 GPUs, 4.19 M
// transfers, peaks at 1.35 GB, 320 B each) exceeds the limit.
#pragma once

#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/net/collective_runner.hpp"

namespace stepsim::run {

struct CollectiveRequest {
  net::CollectiveOp op = net::CollectiveOp::all_reduce;
  std::string group = "world";  // as --group spells it (net::parse_group)
  std::vector<double> sizes;    // bytes
  hw::Fidelity fidelity = hw::Fidelity::flow;
  net::PlanOptions options;
  double max_memory = 0.0;  // bytes; 0: no limit
  std::string what;         // the cluster's file, in refusals
};

struct CollectiveRow {
  net::CollectiveResult result;
  long long steps = 0;     // the phases' repetitions
  double latency_s = 0.0;  // the same choice on one byte
};

struct CollectiveSizes {
  std::string cluster;
  int group_size = 0;
  std::vector<CollectiveRow> rows;  // per size, in the order asked
};

CollectiveSizes run_collective_sizes(const spec::ClusterSpec& cluster,
                                     const CollectiveRequest& request,
                                     const engine::RunControl* control);

}  // namespace stepsim::run
