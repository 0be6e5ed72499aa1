#include "sim/exec/symmetry.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "sim/hw/variability.hpp"
#include "sim/net/group_layout.hpp"

namespace stepsim::exec {

using workload::ParallelPlan;

namespace {

struct Layout {
  int block, cell, cells, gpn, half, spines, offset;
  const spec::ClusterSpec* cluster;
};

Layout layout_of(const ParallelPlan& plan, const spec::ClusterSpec& cluster) {
  const int cell = std::lcm(plan.tp * plan.cp, plan.ep), block = plan.gpus_per_rank();
  return {block,
          cell,
          block / cell,
          cluster.gpus_per_node,
          cluster.fabric.nodes_per_leaf(cluster.gpus_per_node),
          spec::fabric_shape(cluster).spines_per_plane,
          plan.gpu_offset,
          &cluster};
}

// Where traffic may cross the spines, the spine a transfer takes depends on its destination's
// port on its leaf (hw/topology.hpp): a column's routes are fixed by the leaves (node / nodes per
// leaf, the same in every plane or rail) and the port modulo the spines of each of its nodes'
// first GPU in the column (the others follow it), rank by rank. Columns whose leaves are the
// same up to a shift by whole leaves, at the same ports, send the same pattern over leaf-spine
// links of the same capacity, each leaf holding the same columns shifted alike: their routes are
// translations of one another, so the signature holds each leaf relative to the column's first
// (and, in a clos3, each pod relative to its first: a shift that moves a route across a pod
// boundary changes it). A column under a leaf that the cluster fills only in part merges with
// full leaves' columns: it is timed with them, at the slowest member's pace.
std::vector<int> signature(const Layout& l, int pp, int j) {
  std::vector<int> sig;
  // Without pipeline sends and with its groups inside one node, a column sends nothing over the
  // fabric but in data-parallel collectives, which every class shares.
  const bool one_node = (j * l.cell) / l.gpn == (j * l.cell + l.cell - 1) / l.gpn;
  if (l.spines == 0 || (pp == 1 && one_node)) return sig;
  const int pod_leaves = l.cluster->fabric.kind == spec::FabricKind::clos3
                             ? std::max(1, l.cluster->fabric.leaves_per_pod)
                             : 1 << 30;
  const int base = l.cluster->slot_of((l.offset + j * l.cell) / l.gpn) / l.half;
  for (int r = 0; r < pp; ++r) {
    const int first = l.offset + r * l.block + j * l.cell;
    for (int n = first / l.gpn; n <= (first + l.cell - 1) / l.gpn; ++n) {
      const int leaf = l.cluster->slot_of(n) / l.half;
      sig.push_back(leaf - base);
      sig.push_back(leaf / pod_leaves - base / pod_leaves);
      sig.push_back(spec::leaf_port(*l.cluster, std::max(first, n * l.gpn)) % l.spines);
    }
  }
  return sig;
}

// Classes of the untouched columns: one per signature.
std::map<std::vector<int>, std::vector<int>> merged(const Layout& l, int pp,
                                                    const std::vector<bool>& touched) {
  std::map<std::vector<int>, std::vector<int>> by;
  for (int j = 0; j < l.cells; ++j)
    if (!touched[j]) by[signature(l, pp, j)].push_back(j);
  return by;
}

}  // namespace

Symmetry make_symmetry(const ParallelPlan& plan, const hw::Topology& topo, bool exact) {
  const Layout l = layout_of(plan, topo.spec());
  Symmetry s;
  s.block = l.block;
  s.cell = l.cell;
  s.cells = l.cells;
  s.offset = l.offset;
  const int gpn = l.gpn;
  // Nodes a network fault acts on.
  std::vector<bool> node_touched(topo.spec().nodes, false);
  std::vector<int> faulted_leaves;
  for (const auto& f : topo.spec().faults) {
    if (f.node_hit(gpn) >= 0) node_touched[f.node_hit(gpn)] = true;
    if (f.on_leaf_spine_link() || f.leaf_switch())
      faulted_leaves.push_back(f.plane * topo.leaves_per_plane() + f.leaf);
    if (f.spine_switch())  // every leaf of its plane loses a link
      for (int l = 0; l < topo.leaves_per_plane(); ++l)
        faulted_leaves.push_back(f.plane * topo.leaves_per_plane() + l);
  }
  if (!faulted_leaves.empty())
    for (int g = 0; g < topo.gpus(); ++g)
      for (int leaf : faulted_leaves)
        if (topo.on_leaf(g, leaf)) node_touched[g / gpn] = true;
  std::vector<bool> touched(s.cells, exact || !net::routes_translate(topo.spec()));
  for (int j = 0; j < s.cells; ++j)
    for (int r = 0; r < plan.pp && !touched[j]; ++r)
      for (int g = s.first_gpu(r, j); g < s.first_gpu(r, j) + s.cell && !touched[j]; ++g)
        touched[j] = node_touched[g / gpn] || topo.slowdown_of(g) != 1.0;
  for (int j = 0; j < s.cells; ++j)
    if (touched[j]) s.classes.push_back({j});
  for (auto& [sig, cells] : merged(l, plan.pp, touched)) s.classes.push_back(std::move(cells));
  std::sort(s.classes.begin(), s.classes.end());
  return s;
}

std::string cells_text(const std::vector<int>& cells) {
  std::string s;
  for (std::size_t i = 0; i < cells.size();) {
    std::size_t j = i;
    while (j + 1 < cells.size() && cells[j + 1] == cells[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(cells[i]) +
         (j > i ? "-" + std::to_string(cells[j]) : std::string());
    i = j + 1;
  }
  return s;
}

int estimate_classes(const ParallelPlan& plan, const spec::ClusterSpec& cluster, bool exact) {
  const Layout l = layout_of(plan, cluster);
  if (exact || !net::routes_translate(cluster)) return l.cells;
  long long classes =
      static_cast<long long>(merged(l, plan.pp, std::vector<bool>(l.cells, false)).size());
  for (const auto& f : cluster.faults) {
    if (f.node_hit(cluster.gpus_per_node) >= 0)
      classes += cluster.gpus_per_node;  // the cells of one node, at most
    else if (f.spine_switch())
      classes += l.cells;
    else if (f.on_leaf_spine_link() || f.leaf_switch())
      classes += std::min(l.half * cluster.gpus_per_node, l.cells);  // the cells under a leaf
    else
      classes += 1;  // a straggler's cell
  }
  return static_cast<int>(std::min<long long>(classes, l.cells));
}

ClassPaces class_paces(const Symmetry& sym, int pp, const hw::Topology& topo) {
  const int classes = sym.size();
  ClassPaces out;
  out.pace.assign(static_cast<std::size_t>(pp) * classes, 1.0);
  out.share.assign(out.pace.size(), 1.0);
  out.slowest.assign(out.pace.size(), -1);
  const spec::VariabilitySpec& v = topo.spec().variability;
  std::vector<double> own;
  for (int r = 0; r < pp; ++r)
    for (int k = 0; k < classes; ++k) {
      own.clear();
      int slowest = -1;
      double worst = 1.0;
      for (int j : sym.classes[k])
        for (int g = sym.first_gpu(r, j); g < sym.first_gpu(r, j) + sym.cell; ++g) {
          own.push_back(topo.slowdown_of(g) * hw::gpu_variability(v, g));
          if (own.back() > worst) worst = own.back(), slowest = g;
        }
      const double pace = std::max(1.0, *std::max_element(own.begin(), own.end()));
      double share = 0.0;
      for (double x : own) share += x / pace;
      out.slowest[r * classes + k] = slowest;
      out.pace[r * classes + k] = pace;
      out.share[r * classes + k] = share / static_cast<double>(own.size());
    }
  return out;
}

}  // namespace stepsim::exec
