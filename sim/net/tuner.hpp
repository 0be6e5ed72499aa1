// The choice `auto` makes for a collective, as NCCL's tuner makes it (src/graph/tuning.cc): for
// every algorithm that runs the operation, fits the group and finds what it needs on the cluster,
// and every protocol it runs with, a closed-form time; the fastest wins (ties: registry order,
// then Simple, LL128, LL).
//
//   t = base + steps · (α + sync) + (c - 1) · later + max(B_nvlink / β_nvlink, B_ib / β_nic) /
//   payload
//
// steps and B (bytes per GPU per link class) are the algorithm's closed forms (algorithm/*.cpp);
// α the wire latency of a hop (the NIC's plus the spine's across nodes, NVLink's inside one);
// sync, base and payload the protocol's (protocol.hpp); β the achievable rates of the cluster
// file (the NVLS rate for algorithms that reduce in the NVSwitch); `later` what each chunk after
// the first adds with NCCL's 8 steps in flight per connection (later_chunk_latency,
// transfer_dag.hpp, with a chunk-step of span/c on the slower link class); c the chunks:
// c = ⌈span / (C · chunk)⌉ (at most 1024), span being the bytes one hop moves per step over all
// channels, C the channels and chunk the protocol's step payload. Channels: 2 per GPU of a node
// (16 on 8-GPU nodes, the count NCCL runs on such nodes, e.g. NCCL_MIN_NCHANNELS=16 in
// NVIDIA/nccl#1218) unless given.
// What is chosen is then simulated on the flow network, where links are shared and routes'
// own latencies apply; the estimate is kept beside it (CollectivePlan::predicted_s).
// Not modelled: NCCL's per-channel bandwidth caps and its algorithm/protocol enable rules per
// architecture.
#pragma once

#include "sim/net/algorithm/algorithm.hpp"
#include "sim/spec/cluster.hpp"

namespace stepsim::net {

struct Choice {
  const AlgorithmDef* algorithm = nullptr;
  Protocol protocol = Protocol::simple;
  int channels = 1;
  int chunks = 1;
  double predicted_s = 0.0;
};

// The default channel count for a group with g GPUs per node.
int default_channels(int gpus_per_node);

// The chunks `a` is cut into for `in` with `protocol` over `channels` (options.chunks and
// options.chunk_bytes override).
int chunks_for(const AlgorithmDef& a, const ShapeInput& in, Protocol protocol, int channels,
               const PlanOptions& options);

// The closed-form time of `a` with `protocol`.
double predict(const AlgorithmDef& a, const ShapeInput& in, Protocol protocol, int chunks,
               const spec::ClusterSpec& cluster);

// The choice for `op` over a group of this shape; options.algorithm, .protocol, .channels and
// .chunks fix what they name ("auto"/0 leave it to the tuner). Throws engine::UserError (at
// --algorithm or --protocol) when what is fixed cannot run.
Choice tune(CollectiveOp op, double bytes, GroupShape shape, bool uniform,
            const spec::ClusterSpec& cluster, const PlanOptions& options);

}  // namespace stepsim::net
