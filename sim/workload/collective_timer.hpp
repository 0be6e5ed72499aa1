// Times the collectives of a simulated step on the cluster's network.
//
// Each device (a symmetry class of a pipeline rank, symmetry.hpp) is simulated by its first
// cell, so its groups are those of that cell: tp (consecutive ranks) and ep (consecutive) from the
// cell's first GPU; dp (stride tp) and edp (stride ep), which take a GPU of every cell, from the
// rank's first GPU. Every distinct (operation, size, group) is run once on the flow network (or
// analytically) and reused. The bytes each GPU sends per link class are kept for the op being
// built, which takes them with take_link() (the trace shows them as link throughput). The other
// replicas: every cell of the class runs the same collective at the same moment on its own groups,
// the sibling groups (the other tp or ep groups of the class's cells, the rank's other dp or edp
// groups, the pipeline sends of the class's other GPUs). With flow fidelity the siblings'
// collectives run together on one network, so they share the leaf uplinks and spines they cross (an
// oversubscribed fabric slows the replicas' pipeline sends between leaves), and the rank takes the
// time of the slowest: its representative waits for its slowest replica, as the coupling
// collectives (the data-parallel reduction, the expert exchange, the next stage's input) make every
// replica do. On a cluster with a NIC, link or NVLink fault, each sibling the fault can touch (a
// GPU on a faulted node; for a leaf-spine fault, a group that spans leaves) is also timed alone. A
// fault thus slows the step wherever it sits, and two positions the layout makes equivalent give
// the same step. Approximations: the slowest replica is assumed slowest in every collective (exact
// for one fault, an upper bound for faults in different replicas). Collectives of different kinds
// that overlap in time (one rank's expert exchange, another's gradient reduction) share the fabric
// in the executor, through their load profiles.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/hw/flow_network.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/net/collective_plan.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "sim/workload/step_graph.hpp"
#include "sim/workload/symmetry.hpp"

namespace stepsim::workload {

// The nodes a token may reach in a dispatch: the model's expert-group limit (groups are nodes
// when the EP group spans `groups` nodes) scaled to the EP group's nodes; 0 when not limited.
int max_target_nodes(const MoeSpec& moe, int ep_nodes);

class CollectiveTimer {
 public:
  CollectiveTimer(const ScenarioSpec& spec, const ParallelPlan& plan, const hw::Topology& topo,
                  const Symmetry& symmetry, const engine::RunControl* control);

  // The device whose collectives follow: pipeline rank `rank`, class of columns `cells`.
  void select(int rank, const std::vector<int>& cells) {
    rank_ = rank;
    cells_ = &cells;
  }

  engine::Time time(net::CollectiveOp op, double bytes, const std::vector<int>& group);
  net::LinkBytes take_link();
  // The load profile of the collectives timed since the last call (their sum when there are
  // several), an index into profiles(); -1 when they load no link.
  int take_load();
  std::vector<std::vector<LinkLoad>> take_profiles() { return std::move(profiles_); }

  std::vector<int> tp_group() const { return strided(cell_first(), plan_.tp, 1); }
  std::vector<int> ep_group() const { return strided(cell_first(), plan_.ep, 1); }
  std::vector<int> dp_group() const { return strided(rank_first(), plan_.dp, plan_.tp); }
  std::vector<int> edp_group() const { return strided(rank_first(), plan_.edp, plan_.ep); }

  std::uint64_t events() const { return events_; }
  int distinct() const { return static_cast<int>(cache_.size()); }

 private:
  static std::vector<int> strided(int first, int count, int stride);
  int rank_first() const { return sym_.first_gpu(rank_, 0); }
  int cell_first() const { return sym_.first_gpu(rank_, cells_->front()); }
  // The groups of the other replicas that run the same collective as `group` (itself included).
  std::vector<std::vector<int>> siblings(const std::vector<int>& group) const;
  // Whether a fault can change how `group`'s collective runs: it has a GPU on a node with a NIC or
  // NVLink fault, or the fabric has a link fault and the group spans leaves (routes may cross it).
  bool touches_fault(const std::vector<int>& group) const;
  struct Timed {
    engine::Time time;
    net::LinkBytes link;  // bytes per GPU and link class
    int load = -1;        // profile
  };
  // The sibling groups' collectives all at once on one network: the time until the last ends,
  // and the load of them all.
  Timed together(net::CollectiveOp op, double bytes, const std::vector<std::vector<int>>& groups);
  Timed run(net::CollectiveOp op, double bytes, const std::vector<int>& group);
  // The link loads of the groups' collectives as a new profile (flow fidelity; -1 otherwise).
  int profile(net::CollectiveOp op, double bytes, const std::vector<std::vector<int>>& groups);

  const ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const hw::Topology& topo_;
  const Symmetry& sym_;
  const engine::RunControl* control_;
  int rank_ = 0;
  const std::vector<int>* cells_ = nullptr;
  hw::Fidelity fidelity_;
  net::PlanOptions options_;
  std::vector<int> faulted_nodes_;  // nodes with a NIC or NVLink fault
  bool fabric_fault_ = false;       // a leaf-spine link fault: any group may route through it
  std::map<std::tuple<int, long long, int, int, int>, Timed> cache_;
  std::map<std::tuple<int, long long, int, int, int>, Timed> together_cache_;
  net::LinkBytes pending_;
  std::vector<int> pending_loads_;
  std::vector<std::vector<LinkLoad>> profiles_;
  std::map<std::vector<int>, int> sums_;  // profiles summed from several
  std::vector<double> scratch_;           // per link, while a profile is summed
  std::vector<int> touched_;
  std::uint64_t events_ = 0;
};

}  // namespace stepsim::workload
