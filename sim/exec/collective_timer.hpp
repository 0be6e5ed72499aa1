// Times the collectives of a simulated step on the cluster's network.
//
// Each device (a symmetry class of a pipeline rank, symmetry.hpp) is simulated by its first
// cell, so its groups are those of that cell: tp (consecutive ranks) and ep (consecutive) from the
// cell's first GPU, cp (stride tp) from the first GPU of the cell's first cp·tp block; dp (stride
// tp) and edp (stride ep), which take a GPU of every cell, from the rank's first GPU. Each
// collective runs with the choice the program resolved for it (workload::CollectiveWork::options:
// algorithm, protocol, channels, chunks): the timer never chooses. Every distinct (operation, size,
// group) is run once on the flow network (or analytically) and reused. The bytes each GPU sends per
// link class are kept for the op being built, which takes them with take_link() (the trace shows
// them as link throughput). Siblings: every cell of the class runs the same collective at the same
// moment on its own groups (the other tp, cp or ep groups of the class's cells, the pipeline sends
// of its other GPUs); a data-parallel collective's siblings are the rank's other dp or edp groups,
// over every class. With flow fidelity the siblings' collectives run together on one network,
// sharing the links they cross, and the op takes the time until the last ends: a class's cells are
// alike, and a data-parallel collective waits for its slowest member. On a cluster with a NIC, link
// or NVLink fault, each sibling the fault can touch (a GPU on a faulted node; for a leaf-spine
// fault, a group that spans leaves) is also timed alone and the op takes the slower. Collectives of
// other classes and kinds that overlap in time (another class's expert exchange, another rank's
// gradient reduction) meet in the executor's live fabric, through their load shapes
// (net/collective_profile.hpp): the op takes its shape with take_load(); an op of several
// collectives (ZeRO's dense and expert parts) runs their shapes one after another, each over its
// share of the op's time.
#pragma once

#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/exec/step_graph.hpp"
#include "sim/exec/symmetry.hpp"
#include "sim/hw/flow_network.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/net/collective_plan.hpp"
#include "sim/net/collective_profile.hpp"
#include "sim/workload/collective_options.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::exec {

class CollectiveTimer {
 public:
  // `send_options`: the pipeline sends' (StepProgram::send_options).
  CollectiveTimer(const workload::ParallelPlan& plan, const hw::Topology& topo,
                  const Symmetry& symmetry, spec::NetworkFidelity fidelity,
                  net::PlanOptions send_options, const engine::RunControl* control);

  // The device whose collectives follow: pipeline rank `rank`, class of columns `cells`.
  void select(int rank, const std::vector<int>& cells) {
    rank_ = rank;
    cells_ = &cells;
  }

  // The collective over `group` (one of the selected device's groups below).
  engine::Time time(const workload::CollectiveWork& c, const std::vector<int>& group);
  // A pipeline send from GPU `from` to GPU `to` (of the selected device's first cell), with its
  // siblings; its load goes the way the bytes do.
  engine::Time send(double bytes, int from, int to);
  net::LinkBytes take_link();
  // The load shape of the collectives timed since the last call (one after another when there
  // are several), an index into the shapes; -1 when they load no link.
  int take_load();
  std::vector<std::vector<net::LinkLoad>> take_profiles() { return profiles_.take_profiles(); }
  std::vector<std::vector<net::LoadPiece>> take_shapes() { return profiles_.take_shapes(); }

  // The selected device's group of a role: tp and ep from its cell's first GPU, cp (and its
  // all-to-all part and ring) from its cp·tp block's, dp and edp from its rank's.
  std::vector<int> group(workload::GroupRole role) const;
  std::vector<int> dp_group() const { return group(workload::GroupRole::dp); }

  std::uint64_t events() const { return profiles_.events(); }
  // Every distinct collective run so far, in the order of its cache key.
  std::vector<net::PlannedCollective> planned() const { return profiles_.planned(); }
  int distinct() const { return profiles_.distinct(); }

 private:
  static std::vector<int> strided(int first, int count, int stride);
  int rank_first() const { return sym_.first_gpu(rank_, 0); }
  // The first GPU of the context-parallel group the selected device's first cell lies in.
  int cp_first() const {
    const int block = plan_.cp * plan_.tp;
    return rank_first() + (cell_first() - rank_first()) / block * block;
  }
  int cell_first() const { return sym_.first_gpu(rank_, cells_->front()); }
  // The groups of the other replicas that run the same collective as `group` (itself included).
  std::vector<std::vector<int>> siblings(const std::vector<int>& group) const;
  // Whether a fault can change how `group`'s collective runs: it has a GPU on a node with a NIC or
  // NVLink fault, or the fabric has a link fault and the group spans leaves (routes may cross it).
  bool touches_fault(const std::vector<int>& group) const;

  const workload::ParallelPlan& plan_;
  const Symmetry& sym_;
  const hw::Topology& topo_;
  int rank_ = 0;
  const std::vector<int>* cells_ = nullptr;
  bool reverse_ = false;  // a send from the group's last GPU to its first
  bool free_ = false;     // a free network: collectives take no time
  bool flow_ = false;     // flow fidelity: siblings share the fabric, ops leave load shapes
  net::PlanOptions send_options_;
  std::vector<int> faulted_nodes_;  // nodes with a NIC or NVLink fault
  bool fabric_fault_ = false;       // a leaf-spine link fault: any group may route through it
  net::CollectiveProfiles profiles_;
  net::LinkBytes pending_;
  std::vector<std::pair<int, long long>> pending_loads_;  // (shape, picoseconds) since take_load
};

}  // namespace stepsim::exec
