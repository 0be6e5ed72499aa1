// DeepEP's normal kernels for the MoE dispatch (and, reversed, the combine), as DeepSeek's
// library runs them (deepseek-ai/DeepEP, csrc/kernels/intranode.cu and internode.cu). S is the
// tokens x bytes per token a GPU dispatches.
//  1. notify: the ranks exchange how many tokens each will send, between two barriers: two rounds
//     of tiny messages (a few bytes per rank), timed as two latencies of the group's longest
//     route before the data moves (CollectivePlan::setup_s); their bytes are left out.
//  2. data: a token goes once over RDMA to each other node that hosts one of its experts, to the
//     GPU of the same local index there, which forwards it over NVLink once to each GPU of its
//     node hosting one of its experts (tokens for the sender's own node go straight over NVLink).
//     RDMA and NVLink work at once (DeepEP pipelines them through its channels).
// Expected copies, with the group's E routed experts spread evenly (E/n per GPU) and a token's
// top-k a uniform random subset (DeepEP's tests route by i.i.d. random scores): R distinct GPUs
// and T distinct nodes per token (target_ranks_per_token, target_nodes_per_token). Every GPU of
// the group is a destination with probability R/n and every node with T/k, so GPU (j,i) sends
// S·T/k to (m,i) on each other node m, and forwarder (m,i) sends S·R/g to each other GPU (m,x).
// Bytes per GPU: NVLink S·R·(g-1)/g, InfiniBand S·T·(k-1)/k.
// Rates: RDMA at the NIC's achievable rate; the NVLink copies at the rate DeepEP's kernels reach
// on the cluster (deepep: {nvlink: RATE, sms: N}: measured with N SMs), scaled by the SMs the
// scenario grants (comm_sms) when fewer, as SM-driven copies are; without a figure, the link's.
// Left out: the RDMA side's dependence on SMs (IBGDA posts from few warps), the metadata bytes
// (top-k indices and weights, under 1 % of a 7 KiB token), and DeepEP's low-latency kernels.
#include <algorithm>

#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

namespace {

bool runs(CollectiveOp op) {
  return op == CollectiveOp::dispatch || op == CollectiveOp::combine;
}

bool fits(GroupShape, bool uniform) {
  return uniform;
}

constexpr double kNotifySteps = 2.0;

double nvlink_wire_factor(const hw::Topology& t, int comm_sms) {
  const spec::ClusterSpec& c = t.spec();
  if (c.deepep_nvlink_bandwidth <= 0.0) return 1.0;
  double rate = c.deepep_nvlink_bandwidth;
  if (comm_sms > 0 && comm_sms < c.deepep_sms) rate *= static_cast<double>(comm_sms) / c.deepep_sms;
  return c.nvlink.bandwidth / std::min(rate, c.nvlink.bandwidth);
}

void plan(const PlanInput& in, TransferSink& sink, CollectivePlan& out) {
  const GroupLayout& l = in.layout;
  const int g = l.per_node(), k = static_cast<int>(l.nodes.size());
  const PlanOptions& o = in.options;
  const double nodes = target_nodes_per_token(o.top_k, o.max_nodes, k, o.experts);
  const double ranks = target_ranks_per_token(o.top_k, o.max_nodes, k, g, o.experts);
  const double wire = nvlink_wire_factor(in.topo, o.comm_sms);
  const bool reverse = in.op == CollectiveOp::combine;
  auto send = [&](int a, int b, double bytes, double payload) {
    sink.add(reverse ? Transfer{b, a, bytes, 1.0, 1.0, payload}
                     : Transfer{a, b, bytes, 1.0, 1.0, payload});
  };
  // rdma and nvlink: bytes per transfer; their payload shares.
  auto pattern = [&](double rdma, double nvlink, double rdma_payload, double nvlink_payload) {
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < g; ++i) {
        for (int m = 0; m < k; ++m)
          if (m != j) send(l.members[j][i], l.members[m][i], rdma, rdma_payload);
        for (int x = 0; x < g; ++x)
          if (x != i) send(l.members[j][i], l.members[j][x], nvlink, nvlink_payload);
      }
  };
  // Notify: two rounds of tiny messages over the group's longest route and a node's own.
  const double far = in.topo.route(in.group.front(), in.group.back()).latency_s;
  const double local = g > 1 ? in.topo.route(l.members[0][0], l.members[0][1]).latency_s : 0.0;
  out.setup_s = kNotifySteps * std::max(far, local);
  pattern(in.bytes * nodes / k, in.bytes * ranks / g * wire, 1.0, 1.0 / wire);
  out.phases.push_back(sink.phase(std::string(to_string(in.op)), 1));
}

LinkBytes bytes_per_gpu(const ShapeInput& in) {
  const int k = in.group.nodes(), g = in.group.gpus_per_node;
  const double nodes = target_nodes_per_token(in.top_k, in.max_nodes, k, in.experts);
  const double ranks = target_ranks_per_token(in.top_k, in.max_nodes, k, g, in.experts);
  return LinkBytes{ranks * (g - 1.0) / g, nodes * (k - 1.0) / k} * in.bytes;
}

double steps(const ShapeInput&) {
  return kNotifySteps + 1.0;
}

// A token's copies spread evenly over the other k - 1 nodes of the group: at least
// (k - L)/(k - 1) of them go to nodes beyond the L of a block.
double leaving(double ib_bytes, GroupShape g, int block_nodes) {
  const int k = g.nodes();
  return k > block_nodes && block_nodes > 0 ? ib_bytes * (k - block_nodes) / (k - 1.0) : 0.0;
}

}  // namespace

extern const AlgorithmDef kDeepEp{
    .name = "deepep",
    .runs = runs,
    .fits = fits,
    .needs = "the same GPUs on every node of the group",
    .plan = plan,
    .bytes_per_gpu = bytes_per_gpu,
    .steps = steps,
    .span = no_span,  // DeepEP's own buffers, not NCCL's chunks
    .nccl = false,
    .leaving = leaving,
    .display = "DeepEP dispatch/combine",
};

}  // namespace stepsim::net
