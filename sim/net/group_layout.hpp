// A collective's group as the topology sees it, and where an algorithm puts the transfers it
// plans.
//
// GroupLayout: the group's nodes in rank order and its GPUs on each; uniform when every node has
// the same local indices (the shape hierarchical algorithms need).
// TransferSink: collects transfers, bundled as they come when bundling is on (collective_plan.hpp
// explains bundling: one representative per class of transfers that are translations of one
// another by whole nodes, with the others' count as multiplicity and a core_weight on the
// leaf-spine links, and an agg_weight on a clos3's aggregation links). O(1) per transfer, so a
// large all-to-all is never held pair by pair. Clusters with network faults are never bundled.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/hw/topology.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/net/transfers.hpp"

namespace stepsim::net {

struct GroupLayout {
  std::vector<int> nodes;
  std::vector<std::vector<int>> members;  // per node, sorted global ranks
  bool uniform = true;                    // same local indices on every node
  int per_node() const { return static_cast<int>(members.front().size()); }
  int size() const;
  GroupShape shape() const { return {size(), per_node()}; }
};

GroupLayout layout_of(const std::vector<int>& group, const hw::Topology& t);

bool has_network_faults(const hw::Topology& t);
// Whether routes of GPUs a whole-leaf shift apart are translations of one another: destination
// routing and packed nodes (not hashed routes, nor nodes placed otherwise). Bundling and the
// symmetry classes (exec/symmetry.hpp) both rest on it.
bool routes_translate(const spec::ClusterSpec& c);
// Whether transfers may be bundled on this cluster: no network faults, and routes that translate.
bool can_bundle(const hw::Topology& t);

// Whether bundles through the spines spread over them (one representative for all spine
// indices, its members counted per spine) rather than one per spine index: when the group is
// whole leaves of consecutive nodes, so that every source leaf's members of a bundle climb to
// the same spines (destination routing picks the spine by the destination's leaf port, and
// across whole leaves each leaf's members see the same ports) and one representative on one
// leaf stands for them all exactly. Not on a dual-plane fabric, whose routes fork over planes.
bool bundles_spread(const std::vector<int>& nodes, const hw::Topology& t);

class TransferSink {
 public:
  TransferSink(const GroupLayout& l, const hw::Topology& t, bool bundle);
  bool bundling() const { return bundle_; }
  // How many transfers the caller is about to add, when it knows: kept one by one (no bundling),
  // they are held at that size from the start instead of grown by doubling and trimmed by take()
  // (a 512-GPU all-to-all with every flow adds 261,632: 17 MB copied and faulted in twice).
  void expect(std::size_t transfers);
  void add(const Transfer& tr);
  std::vector<Transfer> take();
  // A phase of the transfers taken (bundled as bundle() would).
  Phase phase(std::string name, long long repeat);

 private:
  const hw::Topology& t_;
  bool bundle_;
  int k_, g_;
  // The group's nodes, ascending; a node's position among them (O(1) when they are consecutive,
  // as a packed group's are; else a binary search): never an array over the cluster's nodes,
  // which a sink per planned collective would fill at every plan.
  std::vector<int> nodes_;
  bool consecutive_ = true;
  int index_of(int node) const;
  // Representatives by key: hashed while few transfers have come, then (once they number an
  // eighth of the key space) in a dense array, -1 for none yet. A sink per planned collective
  // over thousands of nodes would otherwise fill g²·k·3 slots for a ring's few transfers (on a
  // million GPUs, two fifths of the step's time), and a world all-to-all would hash 268 M pairs
  // (three fifths of its time).
  struct Slots {
    std::size_t size = 0;  // the key space
    std::unordered_map<std::uint64_t, int> hashed;
    std::vector<int> dense;
    int& at(std::uint64_t key, std::uint64_t adds);
    void reset();
  };
  Slots near_;  // transfers under one leaf: (source index, offset, destination index)
  // Through a spine: the same key, and the spine index unless spread_.
  Slots spine_;
  bool spread_ = false;  // bundles_spread()
  static constexpr std::uint32_t kNoCounts = ~std::uint32_t{0};
  std::vector<std::uint32_t> counts_of_;  // per transfer of out_: its block of counts_
  std::vector<double> counts_;            // members per spine index, a block per bundle
  void count(std::size_t transfer, const Transfer& tr, std::uint64_t spine);
  // Between pods: by key, spine index and source and destination pod.
  std::unordered_map<std::uint64_t, int> far_;
  std::uint64_t spines_ = 1;  // per plane
  std::uint64_t adds_ = 0;    // transfers added since the last take()
  // Counted when a bundle first needs them (most sinks, a two-GPU send's, never do).
  void count_leaves();
  std::vector<int> leaves_;  // per GPU index: leaves the group's nodes occupy
  std::vector<int> pods_;    // per GPU index: pods the group's nodes occupy (clos3)
  // 0: a transfer that stays under its leaf, 1: through a spine, 2: between pods.
  int tier(const Transfer& tr) const;
  // What add() keys a transfer by: its nodes' offset in the group, its tier (above), the key of
  // its source and destination place in their nodes and the offset, the spine index it climbs to,
  // and its source's and destination's pods.
  struct Key {
    int offset = 0, climbs = 0;
    std::uint64_t near = 0, spine = 0;
    int src_pod = 0, dst_pod = 0;
  };
  Key key_of(const Transfer& tr) const;
  // The same from the GPUs' places (below), without the topology's divisions and lookups per pair.
  Key key_from_places(const Transfer& tr) const;
  // Per GPU of a group of consecutive nodes, by its place in the group (the GPU minus the group's
  // first): what key_of() asks of the topology, looked up once per GPU instead of once per pair
  // (a world all-to-all adds 268 M pairs of 16,384 GPUs). Made once the sink has taken as many
  // transfers as the group has GPUs, so that a ring's few transfers never pay for it.
  struct Place {
    int index = 0, local = 0;  // its node's place among the group's nodes; its index in its node
    int leaf = -1, pod = 0;    // Topology::leaf_of and pod_of_leaf
    std::uint64_t spine = 0;   // the spine index transfers to it climb to
  };
  std::vector<Place> places_;
  void make_places();
  bool has_places(const Transfer& tr) const;  // of both its GPUs
  std::vector<Transfer> out_;
};

// Bundles a phase planned transfer by transfer (nothing to do on one already bundled).
void bundle(Phase& p, const GroupLayout& l, const hw::Topology& t);

}  // namespace stepsim::net
