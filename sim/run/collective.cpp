#include "sim/run/collective.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

#include "sim/run/estimates.hpp"

namespace stepsim::run {

namespace {

// Memory per planned transfer: its record in the plan, its flow, its max-min variable and events
// (400 bytes, rounded up from what is measured), and per element of its flow
// (net::estimate_route_elements) the element and a constraint member (24 bytes, 32 with the slack
// of growing vectors). Measured on the 16,384-GPU 1 GiB all-to-all (bundles spread over 32 spines)
// and the 512-GPU 64 MiB one with every flow: 74 and 101 MiB at their peak (82 and 110 before the
// flow and max-min records were packed), estimated 216 and 215 MiB: an upper bound, kept.
constexpr double kBytesPerTransfer = 400.0, kBytesPerLink = 32.0;

// The group's shape for the operation: DeepEP places the same number of experts on every rank
// (its dispatch layout asserts num_experts % num_ranks == 0: DeepEP, csrc/kernels,
// notify_dispatch, EP_HOST_ASSERT); a p2p is one GPU to another.
void check_group(const CollectiveRequest& r, int n) {
  const bool moe_op = r.op == net::CollectiveOp::dispatch || r.op == net::CollectiveOp::combine;
  const int experts = r.options.experts;
  if (moe_op && experts % n != 0)
    throw engine::UserError({"--experts", 0, 0},
                            std::to_string(experts) + " experts do not spread evenly over the " +
                                std::to_string(n) + " GPUs of the group",
                            "DeepEP needs the experts to divide over the ranks: e.g. --experts " +
                                std::to_string(n * std::max(1, experts / n)));
  if (r.op == net::CollectiveOp::p2p && n != 2)
    throw engine::UserError(
        {"--group", 0, 0},
        "p2p sends from one GPU to another; the group has " + std::to_string(n) + " GPUs",
        "give a pair, e.g. --group 0,8");
}

}  // namespace

CollectiveSizes run_collective_sizes(const spec::ClusterSpec& cluster, const CollectiveRequest& r,
                                     const engine::RunControl* control) {
  check_memory(hw::Topology::estimate_bytes(cluster), r.max_memory,
               r.what + ": building this topology", "simulate a smaller cluster");
  const hw::Topology topo(cluster);
  const std::vector<int> members = net::parse_group(r.group, topo, "--group");
  const int n = static_cast<int>(members.size());
  check_group(r, n);
  check_memory(
      hw::Topology::estimate_bytes(cluster) +
          net::estimate_transfers(r.op, members, topo, r.options) *
              (kBytesPerTransfer + kBytesPerLink * net::estimate_route_elements(topo)),
      r.max_memory, "this collective",
      r.options.bundle ? "use a smaller group" : "drop --no-bundle, or use a smaller group");
  CollectiveSizes out;
  out.cluster = cluster.name;
  out.group_size = n;
  // Each size's plan, then its latency's (the same at one byte), taken from the plan before it
  // where the algorithm allows (net::replan). The one-byte plan follows from the choices alone
  // (algorithm, protocol, channels, chunks: the rest of the request is every size's), so sizes
  // the tuner gives the same choices share one latency run (an all-to-all over 256 GPUs of the
  // 256-node H800 cluster runs direct, simple, 16 channels, one chunk at 64 MiB and at 1 GiB).
  std::optional<net::CollectivePlan> before;
  for (double s : r.sizes) {
    CollectiveRow row;
    net::CollectivePlan plan = before ? net::replan(std::move(*before), s, members, topo, r.options)
                                      : net::plan_collective(r.op, s, members, topo, r.options);
    row.result = net::run_collective(plan, s, n, topo, r.fidelity, control);
    for (const auto& ph : row.result.phases) row.steps += ph.repeat;
    net::PlanOptions same = r.options;
    same.algorithm = row.result.algorithm;
    same.protocol = row.result.protocol;
    same.channels = row.result.channels;
    same.chunks = row.result.stream_chunks;
    // An earlier size with the same choices ran this latency already.
    auto choices = [](const net::CollectiveResult& x) {
      return std::tie(x.algorithm, x.protocol, x.channels, x.stream_chunks);
    };
    const auto known = std::find_if(out.rows.begin(), out.rows.end(), [&](const CollectiveRow& o) {
      return choices(o.result) == choices(row.result);
    });
    if (known != out.rows.end()) {
      row.latency_s = known->latency_s;
      before = std::move(plan);
    } else {
      before = net::replan(std::move(plan), 1.0, members, topo, same);
      row.latency_s = net::collective_time(*before, topo, r.fidelity, control).seconds();
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace stepsim::run
