// A collective as a DAG of transfer sets, made from its algorithm's plan (collective_plan.hpp)
// and run on one flow network, so its transfers in flight share the links they cross.
//
// The data is cut into c chunks (PlanOptions::chunks, as NCCL pipelines a collective through its
// buffer slots). Node (p, j) carries chunk j through phase p: each of the phase's transfers with
// repeat·bytes/c, paying its route's latency `repeat` times (the phase's steps back to back). It
// starts when chunk j has left phase p-1 and chunk j-1 has left phase p (a channel moves its
// chunks in order). With c = 1 the phases run one after another; with c > 1 phase p+1 works on
// chunk j while phase p works on chunk j+1, so a hierarchical collective's NVLink and InfiniBand
// phases overlap, sharing whatever links they both cross, and every chunk pays every step's
// latency. A plan of one phase is not cut: there is nothing to overlap.
// The steps of a phase move as one transfer per chunk. That is exact for a phase of identical
// steps on the same links (a ring's, an all-to-all's): max-min rates do not depend on the bytes
// left, so R steps of b bytes take R·(α + t(b)) whether run one by one or as one transfer of R·b
// bytes paying R·α. What it leaves out: a chunk starting a step while the previous chunk is still
// in a later step on other links (phases whose steps cross different links plan their own
// pipeline, as the chain broadcast does), NCCL's protocols and its per-step slot limit.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/hw/flow_network.hpp"
#include "sim/net/collective_plan.hpp"

namespace stepsim::net {

struct DagNode {
  int phase = 0, chunk = 0;
  std::vector<int> deps;  // nodes delivered before it starts
};

struct TransferDag {
  int chunks = 1;
  std::vector<DagNode> nodes;  // in an order where every dependency comes first
};

// The DAG of `plan` in `chunks` chunks (at least 1; a one-phase plan stays whole).
TransferDag make_dag(const CollectivePlan& plan, int chunks);

struct DagRun {
  engine::Time end;                         // the last delivery
  std::vector<engine::Time> start, finish;  // per node
  std::uint64_t events = 0;
};

// Runs the DAG on a fresh network: each node's transfers start when its dependencies are
// delivered; it is delivered when all of them are.
DagRun run_dag(const CollectivePlan& plan, const TransferDag& dag, const hw::Topology& topo,
               hw::Fidelity fidelity, const engine::RunControl* control = nullptr);

}  // namespace stepsim::net
