// Times the collectives of a simulated step on the cluster's network.
//
// Each device (a symmetry class of a pipeline rank, symmetry.hpp) is simulated by its first
// cell, so its groups are those of that cell: tp (consecutive ranks) and ep (consecutive) from the
// cell's first GPU, cp (stride tp) from the first GPU of the cell's first cp·tp block; dp (stride
// tp) and edp (stride ep), which take a GPU of every cell, from the rank's first GPU. Each
// collective runs with the choice the program resolved for it (workload::CollectiveWork::options:
// algorithm, protocol, channels, chunks): the timer never chooses. Every distinct (operation, size,
// group) is run once on the flow network (or analytically) and reused (the timer's only state: a
// cache). Each timing returns the bytes each GPU sends per link class (the trace shows them as link
// throughput) and its load shape. Siblings: every cell of the class runs the same collective at the
// same moment on its own groups (the other tp, cp or ep groups of the class's cells, the pipeline
// sends of its other GPUs); a data-parallel collective's siblings are the rank's other dp or edp
// groups, over every class. With flow fidelity the siblings' collectives run together on one
// network, sharing the links they cross, and the op takes the time until the last ends: a class's
// cells are alike, and a data-parallel collective waits for its slowest member. On a cluster with a
// NIC, link or NVLink fault, each sibling the fault can touch (a GPU on a faulted node; for a
// leaf-spine fault, a group that spans leaves) is also timed alone and the op takes the slower.
// Collectives of other classes and kinds that overlap in time (another class's expert exchange,
// another rank's gradient reduction) meet in the executor's live fabric, through their load shapes
// (net/collective_profile.hpp): an op of several collectives (ZeRO's dense and expert parts) runs
// their shapes one after another, each over its share of the op's time (sequence()).
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

// The GPUs a device stands for: pipeline rank `rank`, its symmetry class's columns `cells`.
struct DeviceCells {
  int rank = 0;
  const std::vector<int>* cells = nullptr;
};

// A collective timed on a device's groups with its siblings.
struct TimedCollective {
  bool ran = false;  // false: nothing to run (one GPU, no bytes, a free network)
  engine::Time time;
  net::LinkBytes link;  // bytes each GPU sends, per link class
  int shape = -1;       // its load shape (flow fidelity), -1: it loads no link
};

class CollectiveTimer {
 public:
  // `send_options`: the pipeline sends' (StepProgram::send_options).
  CollectiveTimer(const workload::ParallelPlan& plan, const hw::Topology& topo,
                  const Symmetry& symmetry, spec::NetworkFidelity fidelity,
                  net::PlanOptions send_options, const engine::RunControl* control);

  // The collective over the device's group of its role.
  TimedCollective time(const workload::CollectiveWork& c, const DeviceCells& d);
  // A pipeline send from GPU `from` to GPU `to` (of the device's first cell), with its siblings;
  // its load goes the way the bytes do.
  TimedCollective send(double bytes, int from, int to, const DeviceCells& d);
  // The load shape of collectives run one after another, each over its time (an index into the
  // shapes; those that did not run take no part); -1 when none loads a link.
  int sequence(const std::vector<TimedCollective>& parts);
  std::vector<std::vector<net::LinkLoad>> take_profiles() { return profiles_.take_profiles(); }
  std::vector<std::vector<net::LoadPiece>> take_shapes() { return profiles_.take_shapes(); }

  // The device's group of a role: tp and ep from its cell's first GPU, cp (and its all-to-all
  // part and ring) from its cp·tp block's, dp and edp from its rank's.
  std::vector<int> group(workload::GroupRole role, const DeviceCells& d) const;

  std::uint64_t events() const { return profiles_.events(); }
  std::uint64_t flows() const { return profiles_.flows(); }
  // Every distinct collective run so far, in the order of its cache key.
  std::vector<net::PlannedCollective> planned() const { return profiles_.planned(); }
  int distinct() const { return profiles_.distinct(); }

 private:
  static std::vector<int> strided(int first, int count, int stride);
  // The collective over `group`, sent from its last GPU to its first when `reverse`.
  TimedCollective run(const workload::CollectiveWork& c, const std::vector<int>& group,
                      const DeviceCells& d, bool reverse);
  // The groups of the other replicas that run the same collective as `group` (itself included).
  std::vector<std::vector<int>> siblings(const std::vector<int>& group, const DeviceCells& d) const;
  // How many siblings() gives, without building them: a million-GPU step times each pipeline
  // send with 65,536 siblings, and rebuilding them for every send took a quarter of its time.
  std::size_t sibling_count(const std::vector<int>& group, const DeviceCells& d) const;
  // Whether a fault can change how `group`'s collective runs: it has a GPU on a node with a NIC or
  // NVLink fault, or the fabric has a link fault and the group spans leaves (routes may cross it).
  bool touches_fault(const std::vector<int>& group) const;

  const workload::ParallelPlan& plan_;
  const Symmetry& sym_;
  const hw::Topology& topo_;
  bool free_ = false;  // a free network: collectives take no time
  bool flow_ = false;  // flow fidelity: siblings share the fabric, ops leave load shapes
  net::PlanOptions send_options_;
  std::vector<int> faulted_nodes_;  // nodes with a NIC or NVLink fault
  bool fabric_fault_ = false;       // a leaf-spine link fault: any group may route through it
  net::CollectiveProfiles profiles_;
};

}  // namespace stepsim::exec
