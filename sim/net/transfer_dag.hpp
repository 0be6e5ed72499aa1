// A collective as a DAG of transfer sets, made from its algorithm's plan (collective_plan.hpp)
// and run on one flow network, so its transfers in flight share the links they cross.
//
// The data is cut into c chunks (PlanOptions::chunks or the tuner's, as NCCL pipelines a
// collective through its buffer slots). Node (p, j) carries chunk j through phase p: each of the
// phase's transfers with repeat·bytes/c. It starts when chunk j has left phase p-1 and chunk j-1
// has left phase p (a channel moves its chunks in order). With c = 1 the phases run one after
// another; with c > 1 phase p+1 works on chunk j while phase p works on chunk j+1, so a
// hierarchical collective's NVLink and InfiniBand phases overlap, sharing whatever links they
// both cross. A plan starts after the protocol's base latency and the algorithm's setup
// (DeepEP's notify).
//
// Latency: the first chunk through a phase pays that of its `repeat` steps (route latency plus
// the protocol's per-step sync); every later chunk follows one stage behind. With w steps in
// flight per connection (NCCL keeps w = 8, kSlots) a chunk-step of t seconds on its route's
// narrowest link and latency α takes max(t, (α + t)/w) in steady state (a sliding window): a
// later chunk adds max(0, (α + t)/w - t), α when w = 1, nothing once w chunks cover the round
// trip.
//
// Closed form of one phase of R identical steps on links of rate β, cut into c chunks, w slots:
//   t = R·α + (c - 1)·max(0, (α + t_c)/w - t_c) + R·b/β
// with b the bytes a transfer carries per step and t_c = b/(c·β) a chunk-step's time: max-min
// rates do not depend on the bytes left, so R steps of b bytes take R·b/β whether run one by one
// or as one transfer. For a ring of n GPUs over a vector S (b = S/n, R = n - 1 for a
// reduce-scatter) every link carries (n-1)·c chunk-steps of S/(c·n) in n-1+c-1 stages, of which
// with one slot (w = 1) each pays α.
//
// Left out: a chunk starting a step while the previous chunk is still in a later step on other
// links (phases whose steps cross different links plan their own pipeline, as the chain
// broadcast does).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/hw/flow_network.hpp"
#include "sim/net/transfers.hpp"

namespace stepsim::net {

struct DagNode {
  int phase = 0, chunk = 0;
  std::vector<int> deps;      // nodes delivered before it starts
  double share = 1.0;         // the steps' bytes it moves, in steps of its phase
  double first_steps = 0.0;   // steps whose full latency it pays (the first chunk's)
  double later_chunks = 0.0;  // chunks a stage behind, each paying the window's latency
};

struct TransferDag {
  int chunks = 1;              // nodes per phase
  int cut = 1;                 // chunks the data is cut into
  int slots = 8;               // steps in flight per connection
  std::vector<DagNode> nodes;  // in an order where every dependency comes first
};

// The latency a later chunk adds on a route of latency `alpha` whose chunk-step takes
// `chunk_s` on its narrowest link, with `slots` steps in flight.
inline double later_chunk_latency(double alpha, double chunk_s, int slots) {
  const double d = (alpha + chunk_s) / slots - chunk_s;
  return d > 0.0 ? d : 0.0;
}

// NCCL's slots per connection (NCCL_STEPS): steps in flight at once, whose latencies overlap.
inline constexpr int kSlots = 8;

// The DAG of `plan` in `chunks` chunks (at least 1) with `slots` steps in flight. A one-phase plan
// stays one node paying R step latencies and c-1 later chunks', which is what its c chunks one
// stage behind each other take (max-min rates do not depend on bytes).
TransferDag make_dag(const CollectivePlan& plan, int chunks, int slots = kSlots);

struct DagRun {
  engine::Time end;                         // the last delivery
  std::vector<engine::Time> start, finish;  // per node
  std::uint64_t events = 0;
};

// The groups of leaf-spine links (a leaf's uplinks, the downlinks into a leaf) that every transfer
// of the plan crossing them crosses with one spread: the network lumps each into one constraint,
// which is exact (hw/flow_network.hpp). None when no transfer spreads. The spreads point into the
// plan.
hw::FlowNetwork::Lumps spine_lumps(const CollectivePlan& plan, const hw::Topology& topo);

// Runs the DAG on a fresh network: each node's transfers start when its dependencies are
// delivered; it is delivered when all of them are.
DagRun run_dag(const CollectivePlan& plan, const TransferDag& dag, const hw::Topology& topo,
               hw::Fidelity fidelity, const engine::RunControl* control = nullptr);

}  // namespace stepsim::net
