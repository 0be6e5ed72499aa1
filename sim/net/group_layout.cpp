#include "sim/net/group_layout.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "sim/engine/simulator.hpp"

namespace stepsim::net {

int GroupLayout::size() const {
  int n = 0;
  for (const auto& m : members) n += static_cast<int>(m.size());
  return n;
}

GroupLayout layout_of(const std::vector<int>& group, const hw::Topology& t) {
  GroupLayout l;
  for (int g : group) {
    if (l.nodes.empty() || l.nodes.back() != t.node_of(g)) {
      l.nodes.push_back(t.node_of(g));
      l.members.emplace_back();
    }
    l.members.back().push_back(g);
  }
  for (const auto& m : l.members) {
    if (m.size() != l.members.front().size()) l.uniform = false;
    for (std::size_t i = 0; l.uniform && i < m.size(); ++i)
      if (t.local_of(m[i]) != t.local_of(l.members.front()[i])) l.uniform = false;
  }
  return l;
}

bool has_network_faults(const hw::Topology& t) {
  return std::any_of(t.spec().faults.begin(), t.spec().faults.end(),
                     [](const spec::FaultSpec& f) { return f.target() != spec::FaultTarget::gpu; });
}

bool routes_translate(const spec::ClusterSpec& c) {
  return c.fabric.routing == spec::Routing::destination && c.placement == spec::Placement::packed;
}

bool can_bundle(const hw::Topology& t) {
  return !has_network_faults(t) && routes_translate(t.spec());
}

bool bundles_spread(const std::vector<int>& nodes, const hw::Topology& t) {
  const spec::ClusterSpec& c = t.spec();
  if (t.spines_per_plane() < 2 || c.fabric.kind == spec::FabricKind::dual_plane) return false;
  const int per_leaf = std::max(1, c.fabric.nodes_per_leaf(c.gpus_per_node));
  const int k = static_cast<int>(nodes.size());
  if (k % per_leaf != 0 || nodes.front() % per_leaf != 0) return false;
  for (int j = 1; j < k; ++j)
    if (nodes[j] != nodes[0] + j) return false;
  return true;
}

TransferSink::TransferSink(const GroupLayout& l, const hw::Topology& t, bool bundle)
    : t_(t),
      bundle_(bundle && can_bundle(t)),
      k_(static_cast<int>(l.nodes.size())),
      g_(t.spec().gpus_per_node) {
  if (!bundle_) return;
  nodes_ = l.nodes;
  for (int j = 1; j < k_; ++j) consecutive_ = consecutive_ && nodes_[j] == nodes_[0] + j;
  spines_ = static_cast<std::uint64_t>(std::max(1, t.spines_per_plane()));
  near_.size = static_cast<std::size_t>(g_) * g_ * k_;
  spread_ = bundles_spread(nodes_, t);
  spine_.size = spread_ ? near_.size : near_.size * spines_;
}

void TransferSink::count_leaves() {
  leaves_.assign(g_, 1);
  pods_.assign(g_, 1);
  auto distinct = [](std::vector<int>& v) {
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    return std::max<int>(1, static_cast<int>(std::unique(v.begin(), v.end()) - v.begin()));
  };
  // Distinct leaves (and pods) the group's nodes occupy at each GPU index (one per plane or
  // rail).
  std::vector<int> leaves, pods;
  for (int i = 0; i < g_; ++i) {
    leaves.clear();
    pods.clear();
    for (int node : nodes_) {
      leaves.push_back(t_.leaf_of(node * g_ + i));
      pods.push_back(t_.pod_of_leaf(leaves.back()));
    }
    leaves_[i] = distinct(leaves);
    pods_[i] = distinct(pods);
  }
}

int TransferSink::index_of(int node) const {
  if (consecutive_) return node - nodes_.front();
  return static_cast<int>(std::lower_bound(nodes_.begin(), nodes_.end(), node) - nodes_.begin());
}

int TransferSink::tier(const Transfer& tr) const {
  if (!t_.crosses_spine(tr.src, tr.dst)) return 0;
  const int a = t_.leaf_of(tr.src), b = t_.leaf_of(tr.dst);
  return t_.pod_of_leaf(a) != t_.pod_of_leaf(b) ? 2 : 1;
}

void TransferSink::expect(std::size_t transfers) {
  if (!bundle_) out_.reserve(out_.size() + transfers);
}

void TransferSink::add(const Transfer& tr) {
  if (!bundle_) {
    out_.push_back(tr);
    return;
  }
  ++adds_;
  // A world all-to-all adds hundreds of millions of pairs: a signal or --max-wall waits no longer.
  if ((adds_ & 0xFFFF) == 0) engine::check_command();
  if (places_.empty() && consecutive_ && adds_ >= static_cast<std::uint64_t>(k_) * g_)
    make_places();
  const Key key = has_places(tr) ? key_from_places(tr) : key_of(tr);
  int* at = nullptr;
  if (key.climbs == 0) {
    at = &near_.at(key.near, adds_);
  } else if (key.climbs == 1) {
    at = &spine_.at(spread_ ? key.near : key.near * spines_ + key.spine, adds_);
  } else {
    const auto pods = static_cast<std::uint64_t>(t_.pods());
    const std::uint64_t far =
        ((key.near * spines_ + key.spine) * pods + key.src_pod) * pods + key.dst_pod;
    at = &far_.try_emplace(far, -1).first->second;
  }
  int& slot = *at;
  const bool counted = key.climbs == 1 && spread_;
  if (slot >= 0 && out_[slot].bytes == tr.bytes) {
    out_[slot].multiplicity += tr.multiplicity;
    if (counted) count(static_cast<std::size_t>(slot), tr, key.spine);
    return;
  }
  if (slot < 0) slot = static_cast<int>(out_.size());
  out_.push_back(tr);
  if (counted) count(out_.size() - 1, tr, key.spine);
}

TransferSink::Key TransferSink::key_of(const Transfer& tr) const {
  Key key;
  key.offset = (index_of(t_.node_of(tr.dst)) - index_of(t_.node_of(tr.src)) + k_) % k_;
  key.climbs = key.offset != 0 ? tier(tr) : 0;
  // Ordered as an all-to-all generates its pairs (a source's destinations in rank order), so
  // that its dense lookups sweep the array instead of jumping across it.
  key.near = (static_cast<std::uint64_t>(t_.local_of(tr.src)) * k_ + key.offset) * g_ +
             t_.local_of(tr.dst);
  // Transfers through a spine bundle by the spine index they climb to (the destination's leaf
  // port mod the spines), so that the representatives spread over the spines as their members
  // do; between pods also by source and destination pod.
  if (key.climbs > 0)
    key.spine = static_cast<std::uint64_t>(spec::leaf_port(t_.spec(), tr.dst)) % spines_;
  if (key.climbs == 2) {
    key.src_pod = t_.pod_of_leaf(t_.leaf_of(tr.src));
    key.dst_pod = t_.pod_of_leaf(t_.leaf_of(tr.dst));
  }
  return key;
}

void TransferSink::make_places() {
  const int first = nodes_.front() * g_;
  places_.resize(static_cast<std::size_t>(k_) * g_);
  for (int i = 0; i < k_ * g_; ++i) {
    Place& p = places_[i];
    const int gpu = first + i;
    p.index = i / g_;
    p.local = i % g_;
    p.leaf = t_.leaf_of(gpu);
    p.pod = t_.pod_of_leaf(p.leaf);
    p.spine = static_cast<std::uint64_t>(spec::leaf_port(t_.spec(), gpu)) % spines_;
  }
}

bool TransferSink::has_places(const Transfer& tr) const {
  const auto n = static_cast<unsigned>(places_.size());
  const int first = nodes_.front() * g_;
  return static_cast<unsigned>(tr.src - first) < n && static_cast<unsigned>(tr.dst - first) < n;
}

// key_of() step by step: Topology::crosses_spine (the leaf of the fabric entry, the source's node
// at the destination's index with PXN, against the destination's), tier(), leaf_port.
TransferSink::Key TransferSink::key_from_places(const Transfer& tr) const {
  const int first = nodes_.front() * g_;
  const Place& src = places_[tr.src - first];
  const Place& dst = places_[tr.dst - first];
  Key key;
  key.offset = dst.index - src.index;
  if (key.offset < 0) key.offset += k_;
  if (key.offset != 0 && dst.leaf >= 0) {
    const bool pxn = t_.spec().fabric.pxn() && src.local != dst.local;
    const int entry_leaf = pxn ? places_[src.index * g_ + dst.local].leaf : src.leaf;
    if (entry_leaf != dst.leaf) key.climbs = src.pod != dst.pod ? 2 : 1;
  }
  key.near = (static_cast<std::uint64_t>(src.local) * k_ + key.offset) * g_ + dst.local;
  if (key.climbs > 0) key.spine = dst.spine;
  if (key.climbs == 2) {
    key.src_pod = src.pod;
    key.dst_pod = dst.pod;
  }
  return key;
}

void TransferSink::count(std::size_t transfer, const Transfer& tr, std::uint64_t spine) {
  if (counts_of_.size() <= transfer) counts_of_.resize(transfer + 1, kNoCounts);
  if (counts_of_[transfer] == kNoCounts) {
    counts_of_[transfer] = static_cast<std::uint32_t>(counts_.size());
    counts_.resize(counts_.size() + spines_, 0.0);
  }
  double* c = counts_.data() + counts_of_[transfer];
  if (!tr.spread) {
    c[spine] += tr.multiplicity;
    return;
  }
  // A bundle already spread (a phase bundled as it was generated, passed through again).
  for (std::uint64_t s = 0; s < spines_; ++s) c[s] += tr.multiplicity * (*tr.spread)[s];
}

int& TransferSink::Slots::at(std::uint64_t key, std::uint64_t adds) {
  if (dense.empty() && adds >= size / 8) {
    dense.assign(size, -1);
    for (const auto& [k, slot] : hashed) dense[k] = slot;
    hashed.clear();
  }
  return dense.empty() ? hashed.try_emplace(key, -1).first->second : dense[key];
}

void TransferSink::Slots::reset() {
  std::unordered_map<std::uint64_t, int>().swap(hashed);
  std::vector<int>().swap(dense);
}

std::vector<Transfer> TransferSink::take() {
  if (bundle_) {
    near_.reset();
    spine_.reset();
    far_.clear();
    adds_ = 0;
    // A bundle whose members climb to more than one spine spreads over them, each spine its
    // members' share; bundles of one spread are one shared vector.
    std::map<std::vector<double>, std::shared_ptr<const std::vector<double>>> spreads;
    for (std::size_t i = 0; i < counts_of_.size(); ++i) {
      if (counts_of_[i] == kNoCounts) continue;
      const double* c = counts_.data() + counts_of_[i];
      if (std::count_if(c, c + spines_, [](double m) { return m > 0.0; }) < 2) continue;
      std::vector<double> share(c, c + spines_);
      for (double& x : share) x /= out_[i].multiplicity;
      auto& shared = spreads[share];
      if (!shared) shared = std::make_shared<const std::vector<double>>(std::move(share));
      out_[i].spread = shared;
    }
    std::vector<std::uint32_t>().swap(counts_of_);
    std::vector<double>().swap(counts_);
    const bool pxn = t_.spec().fabric.pxn();
    for (Transfer& tr : out_) {
      if (tr.multiplicity <= 1.0 || !t_.crosses_spine(tr.src, tr.dst)) continue;
      if (leaves_.empty()) count_leaves();
      // The NIC a transfer leaves by: its own, or with PXN the one on the destination's plane.
      const int index = pxn ? t_.local_of(tr.dst) : t_.local_of(tr.src);
      if (tier(tr) < 2) {
        tr.core_weight = std::max(1.0, tr.multiplicity / leaves_[index]);
        continue;
      }
      tr.core_weight = std::max(1.0, tr.multiplicity * pods_[index] / leaves_[index]);
      tr.agg_weight = tr.multiplicity;
    }
  }
  // Grown by doubling, up to twice what it holds: a world all-to-all's 135,032 bundles (8.6 MB)
  // would keep up to as much again of slack through the run.
  out_.shrink_to_fit();
  return std::exchange(out_, {});
}

Phase TransferSink::phase(std::string name, long long repeat) {
  Phase p{std::move(name), take(), repeat};
  p.bundled = bundle_;
  return p;
}

void bundle(Phase& p, const GroupLayout& l, const hw::Topology& t) {
  if (p.bundled) return;
  TransferSink b(l, t, true);
  for (const Transfer& tr : p.transfers) b.add(tr);
  p.transfers = b.take();
  p.bundled = b.bundling();
}

}  // namespace stepsim::net
