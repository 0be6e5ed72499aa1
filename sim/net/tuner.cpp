#include "sim/net/tuner.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/user_error.hpp"
#include "sim/net/transfer_dag.hpp"

namespace stepsim::net {

int default_channels(int gpus_per_node) {
  return std::max(2, 2 * gpus_per_node);
}

int chunks_for(const AlgorithmDef& a, const ShapeInput& in, Protocol protocol, int channels,
               const PlanOptions& o) {
  if (o.chunks > 0) return o.chunks;
  const double span = a.span(in);
  if (span <= 0.0) return 1;
  const double chunk = o.chunk_bytes > 0.0 ? o.chunk_bytes : protocol_def(protocol).step_bytes;
  const double c = std::ceil(span / (std::max(1, channels) * chunk));
  return static_cast<int>(std::clamp(c, 1.0, 1024.0));
}

double predict(const AlgorithmDef& a, const ShapeInput& in, Protocol protocol, int chunks,
               const spec::ClusterSpec& cl) {
  const ProtocolDef& p = protocol_def(protocol);
  const bool across = in.group.nodes() > 1;
  const double alpha =
      across ? cl.fabric.nic.latency_s + cl.fabric.spine_latency_s : cl.nvlink.latency_s;
  const double sync = a.nccl ? (across ? p.net_sync_s : p.nvlink_sync_s) : 0.0;
  const double base = a.nccl ? p.base_s : 0.0;
  const double payload = a.nccl ? p.payload : 1.0;
  const double nvlink_rate =
      a.nvls_rate && cl.nvls_bandwidth > 0.0 ? cl.nvls_bandwidth : cl.nvlink.bandwidth;
  LinkBytes b = a.bytes_per_gpu(in);
  if (a.ib_peak) b.ib *= a.ib_peak(in.group);
  double bw = b.nvlink > 0.0 ? b.nvlink / nvlink_rate : 0.0;
  if (b.ib > 0.0 && cl.fabric.nic.bandwidth > 0.0)
    bw = std::max(bw, b.ib / cl.fabric.nic.bandwidth);
  // A chunk-step on the slower link class the algorithm uses.
  const double span = a.span(in);
  const double slow = across ? std::min(cl.fabric.nic.bandwidth, nvlink_rate) : nvlink_rate;
  const double chunk_s = span > 0.0 && slow > 0.0 ? span / chunks / slow / payload : 0.0;
  return base + a.steps(in) * (alpha + sync) +
         (chunks - 1.0) * later_chunk_latency(alpha + sync, chunk_s, kSlots) + bw / payload;
}

Choice tune(CollectiveOp op, double bytes, GroupShape shape, bool uniform,
            const spec::ClusterSpec& cluster, const PlanOptions& o) {
  std::vector<const AlgorithmDef*> candidates;
  if (o.algorithm == "auto") {
    for (const AlgorithmDef* a : algorithms())
      if (a->tuned && a->runs(op) && a->fits(shape, uniform) && available(*a, cluster))
        candidates.push_back(a);
    if (candidates.empty())  // the error choose_algorithm gives for no fitting algorithm
      candidates.push_back(&choose_algorithm(op, shape, uniform, "auto", &cluster));
  } else {
    candidates.push_back(&choose_algorithm(op, shape, uniform, o.algorithm, &cluster));
  }
  std::optional<Protocol> fixed;
  if (o.protocol != "auto") {
    fixed = find_protocol(o.protocol);
    if (!fixed)
      throw engine::UserError({"--protocol", 0, 0}, "unknown protocol '" + o.protocol + "'",
                              protocol_names());
  }
  ShapeInput in{op, bytes, shape};
  in.top_k = o.top_k;
  in.max_nodes = o.max_nodes;
  in.experts = o.experts;
  const int channels = o.channels > 0 ? o.channels : default_channels(shape.gpus_per_node);
  Choice best;
  for (const AlgorithmDef* a : candidates)
    for (Protocol p : kProtocols) {
      if (fixed && p != *fixed) continue;
      if ((a->simple_only || !a->nccl) && p != Protocol::simple) continue;
      const int c = chunks_for(*a, in, p, channels, o);
      const double t = predict(*a, in, p, c, cluster);
      if (!best.algorithm || t < best.predicted_s) best = {a, p, channels, c, t};
    }
  if (!best.algorithm)
    throw engine::UserError(
        {"--protocol", 0, 0},
        std::string(candidates.front()->name) + " runs with the simple protocol only",
        "use --protocol simple or auto");
  return best;
}

}  // namespace stepsim::net
