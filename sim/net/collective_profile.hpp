// A collective's profile in a step: its own time and its demand on the links, phase by phase, from
// running its TransferDag (collective_runner.hpp) once. The step's one place that runs
// TransferDags, and their cache.
//
// A collective is run for a set of groups that run it at once (a group and its siblings: the same
// collective on the other replicas of a symmetry class, see exec/collective_timer.hpp). One group
// runs alone; several run as one TransferDag on one network, phase by phase, sharing the links
// they cross, until the last ends. Groups whose plans do not line up phase by phase (planned by
// different algorithms) run each alone, the first one's course standing for them all and the
// slowest setting the time.
//
// Load shape (flow fidelity): per phase of the plan, the bytes per link of every transfer of the
// groups over the phase's steps, on the links of each transfer's route, planned without bundling
// so that every member loads its own links (bundled, as a representative with core_weight on
// leaf-spine links, beyond 4 M transfers, unless the collective's options forbid bundling: then,
// as for its run, more than 4 M transfers are refused, engine::UserError naming --no-bundle).
// The run is cut into pieces where its phases start and end (with chunks, phases overlap: a piece
// moves the bytes its phases' chunks move then). A reversed profile loads each route from
// destination to source (a send back between the same two GPUs loads the opposite directions of
// full-duplex links).
//
// Cached by (operation, bytes, first GPU, size, stride, kind of traffic, groups): one cache of
// runs (each with its shapes, per direction) and one of joined shapes (the collectives of one op
// one after another).
#pragma once

#include <array>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/net/collective_cost.hpp"
#include "sim/net/collective_plan.hpp"
#include "sim/net/collective_runner.hpp"
#include "sim/spec/scenario.hpp"

namespace stepsim::net {

// Bytes an op moves over one link of the topology during its run (all repetitions).
struct LinkLoad {
  int link = 0;
  double bytes = 0.0;
};

// A piece of a communication op's run, in its own time (its run at its own speed, as a fraction
// from the previous piece's `until`, 0 for the first, to this one's): the bytes per link it moves
// then, a profile, or -1 for none. A collective's pieces follow its TransferDag: a hierarchical
// all-reduce loads NVLink, then the NICs, then NVLink again.
struct LoadPiece {
  double until = 1.0;
  int profile = -1;
};

// A distinct collective that was run alone, with the algorithm it ran.
struct PlannedCollective {
  spec::TrafficKind kind = spec::TrafficKind::tp;
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;  // per GPU
  int first_gpu = 0;   // of its group
  int group_size = 0;
  std::string algorithm;
};

class CollectiveProfiles {
 public:
  struct Profile {
    engine::Time time;
    int chunks = 1;
    std::vector<NodeWindow> nodes;  // when each node of the TransferDag ran
    LinkBytes link;                 // bytes per GPU and link class (of the first group)
    std::string algorithm;
    std::array<int, 2> shape{-2, -2};  // per direction (forward, reversed); -2: not made yet
  };

  CollectiveProfiles(const hw::Topology& topo, hw::Fidelity fidelity,
                     const engine::RunControl* control)
      : topo_(topo), fidelity_(fidelity), control_(control) {}

  // `op` of `bytes` per GPU over `groups` at once, with the options the program resolved.
  const Profile& run(CollectiveOp op, double bytes, const std::vector<std::vector<int>>& groups,
                     const PlanOptions& options, spec::TrafficKind kind);
  // The load shape of that run, made once per direction; -1 when it loads no link.
  int shape(CollectiveOp op, double bytes, const std::vector<std::vector<int>>& groups,
            const PlanOptions& options, spec::TrafficKind kind, bool reverse);
  // The run over `group` and its siblings (`groups` in all) and its shape in that direction, if
  // both were made: found without the siblings' ranks.
  const Profile* made(CollectiveOp op, double bytes, const std::vector<int>& group,
                      spec::TrafficKind kind, int groups, bool reverse) const;
  // Shapes one after another, each over its share of the time: (shape, picoseconds) parts.
  int join(const std::vector<std::pair<int, long long>>& parts);

  std::vector<std::vector<LinkLoad>> take_profiles() { return std::move(profiles_); }
  std::vector<std::vector<LoadPiece>> take_shapes() { return std::move(shapes_); }
  std::uint64_t events() const { return events_; }
  std::uint64_t flows() const { return flows_; }  // flows simulated (a bundle once)
  // Every distinct collective run alone, in the order of its key.
  std::vector<PlannedCollective> planned() const;
  int distinct() const;

 private:
  using Key = std::tuple<int, long long, int, int, int, int, int>;
  static Key key_of(CollectiveOp op, double bytes, const std::vector<int>& group,
                    spec::TrafficKind kind, int groups);
  Profile& alone(CollectiveOp op, double bytes, const std::vector<int>& group,
                 const PlanOptions& options, spec::TrafficKind kind);
  std::vector<int> phase_profiles(CollectiveOp op, double bytes,
                                  const std::vector<std::vector<int>>& groups,
                                  const PlanOptions& options, bool reverse);
  int cut(const Profile& r, const std::vector<int>& phases);
  int add_profile(std::vector<LinkLoad> p);

  const hw::Topology& topo_;
  hw::Fidelity fidelity_;
  const engine::RunControl* control_;
  std::map<Key, Profile> runs_;
  std::map<std::vector<std::pair<int, long long>>, int> joined_;
  std::vector<std::vector<LinkLoad>> profiles_;
  std::vector<std::vector<LoadPiece>> shapes_;
  std::vector<double> scratch_;  // per phase and link, while profiles are summed
  std::uint64_t events_ = 0, flows_ = 0;
};

}  // namespace stepsim::net
