#include "sim/exec/collective_timer.hpp"

#include <algorithm>

#include "sim/engine/check.hpp"

namespace stepsim::exec {

CollectiveTimer::CollectiveTimer(const workload::ParallelPlan& plan, const hw::Topology& topo,
                                 const Symmetry& symmetry, spec::NetworkFidelity fidelity,
                                 net::PlanOptions send_options, const engine::RunControl* control)
    : plan_(plan),
      sym_(symmetry),
      topo_(topo),
      free_(fidelity == spec::NetworkFidelity::free),
      flow_(fidelity == spec::NetworkFidelity::flow),
      send_options_(std::move(send_options)),
      profiles_(topo, flow_ ? hw::Fidelity::flow : hw::Fidelity::analytic, control) {
  const spec::ClusterSpec& cluster = topo.spec();
  for (const auto& f : cluster.faults) {
    if (f.node_hit(cluster.gpus_per_node) >= 0)
      faulted_nodes_.push_back(f.node_hit(cluster.gpus_per_node));
    fabric_fault_ |= f.on_leaf_spine_link() || f.spine_switch();
    if (f.leaf_switch())  // the nodes with a NIC under the leaf
      for (int node = 0; node < cluster.nodes; ++node)
        for (int g = node * cluster.gpus_per_node; g < (node + 1) * cluster.gpus_per_node; ++g)
          if (topo.on_leaf(g, f.plane * topo.leaves_per_plane() + f.leaf)) {
            faulted_nodes_.push_back(node);
            break;
          }
  }
}

bool CollectiveTimer::touches_fault(const std::vector<int>& group) const {
  const int gpn = topo_.spec().gpus_per_node;
  for (int r : group)
    if (std::find(faulted_nodes_.begin(), faulted_nodes_.end(), r / gpn) != faulted_nodes_.end())
      return true;
  if (!fabric_fault_) return false;
  // A leaf-spine fault touches only traffic that climbs to a spine: a group whose nodes reach more
  // than one leaf at some GPU index (plane or rail).
  for (int l = 0; l < gpn; ++l) {
    const int leaf = topo_.leaf_of(group.front() / gpn * gpn + l);
    for (int r : group)
      if (topo_.leaf_of(r / gpn * gpn + l) != leaf) return true;
  }
  return false;
}

std::vector<int> CollectiveTimer::group(workload::GroupRole role, const DeviceCells& d) const {
  using workload::GroupRole;
  const int rank_first = sym_.first_gpu(d.rank, 0);
  const int cell_first = sym_.first_gpu(d.rank, d.cells->front());
  // The first GPU of the context-parallel group the device's first cell lies in.
  const int block = plan_.cp * plan_.tp;
  const int cp_first = rank_first + (cell_first - rank_first) / block * block;
  const auto [size, stride] = plan_.group_of(role);
  if (role == GroupRole::tp || role == GroupRole::ep) return strided(cell_first, size, stride);
  if (role == GroupRole::dp || role == GroupRole::edp) return strided(rank_first, size, stride);
  return strided(cp_first, size, stride);
}

std::vector<std::vector<int>> CollectiveTimer::siblings(const std::vector<int>& group,
                                                        const DeviceCells& d) const {
  const int block = sym_.block;
  const int first = group.front(), base = sym_.offset + (first - sym_.offset) / block * block;
  std::vector<std::vector<int>> out;
  auto shifted = [&](int by) {
    std::vector<int> g = group;
    for (int& r : g) r += by;
    out.push_back(std::move(g));
  };
  const int stride = group[1] - group[0];
  const int rank = (first - sym_.offset) / block;
  const int cell_base = base + (first - base) / sym_.cell * sym_.cell;
  if (group.back() >= base + block) {
    // Pipeline sends, from the first GPU of the class's first cell: every GPU of its cells.
    for (int j : *d.cells)
      for (int o = 0; o < sym_.cell; ++o) shifted(sym_.first_gpu(rank, j) + o - first);
  } else if (group.back() < cell_base + sym_.cell) {
    // tp, cp or ep groups, inside a cell: every group of the class's cells, the n·stride GPUs
    // of a span holding `stride` interleaved groups.
    const int span = static_cast<int>(group.size()) * stride;
    for (int j : *d.cells)
      for (int b = 0; b + span <= sym_.cell; b += span)
        for (int o = 0; o < stride; ++o) shifted(sym_.first_gpu(rank, j) + b + o - first);
  } else {
    for (int i = 0; i < stride; ++i) shifted(base + i - first);  // dp / edp: one per offset
  }
  return out;
}

std::size_t CollectiveTimer::sibling_count(const std::vector<int>& group,
                                           const DeviceCells& d) const {
  const int block = sym_.block;
  const int first = group.front(), base = sym_.offset + (first - sym_.offset) / block * block;
  const int stride = group[1] - group[0];
  const int cell_base = base + (first - base) / sym_.cell * sym_.cell;
  const std::size_t cells = d.cells->size();
  if (group.back() >= base + block) return cells * static_cast<std::size_t>(sym_.cell);
  if (group.back() < cell_base + sym_.cell) {
    const int span = static_cast<int>(group.size()) * stride;
    return cells * static_cast<std::size_t>(sym_.cell / span) * static_cast<std::size_t>(stride);
  }
  return static_cast<std::size_t>(stride);
}

int CollectiveTimer::sequence(const std::vector<TimedCollective>& parts) {
  std::vector<std::pair<int, long long>> pieces;
  bool any = false;
  for (const TimedCollective& p : parts)
    if (p.ran) {
      pieces.push_back({p.shape, p.time.picoseconds()});
      any |= p.shape >= 0;
    }
  if (!any) return -1;
  return pieces.size() == 1 ? pieces.front().first : profiles_.join(pieces);
}

std::vector<int> CollectiveTimer::strided(int first, int count, int stride) {
  std::vector<int> g;
  for (int i = 0; i < count; ++i) g.push_back(first + i * stride);
  return g;
}

TimedCollective CollectiveTimer::send(double bytes, int from, int to, const DeviceCells& d) {
  workload::CollectiveWork c;
  c.op = net::CollectiveOp::p2p;
  c.bytes = bytes;
  c.kind = spec::TrafficKind::pp;
  c.options = send_options_;
  return run(c, {std::min(from, to), std::max(from, to)}, d, from > to);
}

TimedCollective CollectiveTimer::time(const workload::CollectiveWork& c, const DeviceCells& d) {
  return run(c, group(c.group, d), d, false);
}

TimedCollective CollectiveTimer::run(const workload::CollectiveWork& c,
                                     const std::vector<int>& group, const DeviceCells& d,
                                     bool reverse) {
  if (group.size() < 2 || c.bytes <= 0.0 || free_) return {};
  const auto& base = profiles_.run(c.op, c.bytes, {group}, c.options, c.kind);
  engine::Time slowest = base.time;
  const std::size_t count = sibling_count(group, d);
  const bool faulted = fabric_fault_ || !faulted_nodes_.empty();
  if (count > 1 && !faulted) {
    // Without faults only the run of all siblings at once and its shape matter: once made, they
    // are found by the group and the count alone.
    if (!flow_) return {true, slowest, base.link, -1};
    const auto* made =
        profiles_.made(c.op, c.bytes, group, c.kind, static_cast<int>(count), reverse);
    if (made) return {true, std::max(slowest, made->time), base.link, made->shape[reverse ? 1 : 0]};
  }
  auto groups = siblings(group, d);
  STEPSIM_CHECK(groups.size() == count, "sibling count differs from the siblings");
  if (groups.size() > 1) {
    // Faults: each touched sibling alone (a fault can only slow it)...
    if (fabric_fault_ || !faulted_nodes_.empty())
      for (const auto& g : groups)
        if (touches_fault(g))
          slowest = std::max(slowest, profiles_.run(c.op, c.bytes, {g}, c.options, c.kind).time);
    // ...and all of them at once, sharing the fabric (flow fidelity: the analytic model has no
    // sharing to see).
    if (flow_)
      slowest = std::max(slowest, profiles_.run(c.op, c.bytes, groups, c.options, c.kind).time);
  } else {
    groups = {group};
  }
  return {true, slowest, base.link,
          flow_ ? profiles_.shape(c.op, c.bytes, groups, c.options, c.kind, reverse) : -1};
}

}  // namespace stepsim::exec
