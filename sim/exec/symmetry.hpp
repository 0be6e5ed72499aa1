// Symmetry classes: which GPUs of a step behave alike, so that one representative is simulated
// for each class.
//
// A pipeline rank's block of dp·cp·tp GPUs (rank = stage_rank·dp·cp·tp + ...) splits into cells
// of lcm(cp·tp, ep) consecutive GPUs: every tensor-, context- and expert-parallel group lies
// inside one cell, so a cell's layers couple no other cell; cells meet only in the data-parallel
// collectives (over dp and edp, which take one GPU per replica), and cell j of rank r sends its
// pipeline traffic to cell j of the next rank. Cell j of every rank forms a column; a class is a
// set of columns. Columns that no fault and no straggler touches see identical hardware: they run
// identical timelines, so they share one class whose representative stands for all of them (its
// collectives are timed with all its columns' groups together, and its load on the fabric is
// theirs). A column is touched when one of its GPUs, on any rank, is a straggler or sits on a
// node with a NIC or NVLink fault or under a leaf with a faulted leaf-spine link (PXN lets a node's
// traffic leave by any of its NICs, so faults act per node). Each touched column is a class of its
// own. Where traffic crosses the spines, the spine a transfer takes depends on its destination's
// port on its leaf (hw/topology.hpp), so untouched columns merge only when their nodes, rank by
// rank, sit at the same ports modulo the spines under leaves that are the same up to a shift by
// whole leaves (not across a clos3 pod boundary): then their transfers cross leaf-spine links in
// the same pattern, translated. A column under a leaf the cluster fills only in part is timed
// with its class, at the slowest member's pace (an approximation on the safe side). `exact` gives
// every column a class of its own: nothing is reduced. The classes of a rank meet in its
// data-parallel collectives, which start when the last class is ready and end when the last has
// finished (the executor's coupling, step_executor.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/hw/topology.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::exec {

struct Symmetry {
  int cell = 1;                           // GPUs per cell
  int cells = 1;                          // cells per pipeline rank
  int block = 1;                          // GPUs per pipeline rank: dp·cp·tp
  int offset = 0;                         // the job's first GPU (ParallelPlan::gpu_offset)
  std::vector<std::vector<int>> classes;  // the columns of each class, ascending; ordered by first

  int size() const { return static_cast<int>(classes.size()); }
  // First GPU of `cell` on pipeline rank `rank`.
  int first_gpu(int rank, int cell_index) const {
    return offset + rank * block + cell_index * cell;
  }
  int gpus(int cls) const { return static_cast<int>(classes[cls].size()) * cell; }
};

Symmetry make_symmetry(const workload::ParallelPlan& plan, const hw::Topology& topo, bool exact);

// Per device (pipeline rank r, class k: r·size() + k), the pace its compute runs at, its slowest
// GPU's time factor (a straggler's, and each GPU's own speed, hw/variability.hpp; at least 1):
// its cells wait for that GPU at every exchange; and the mean over its GPUs of their own factor
// over the pace (exec::DeviceInfo::pace_share).
// Per device (rank·classes + class): its pace, the mean share of it its GPUs compute, and the
// global rank of the GPU that sets it (-1 when all compute alike).
struct ClassPaces {
  std::vector<double> pace, share;
  std::vector<int> slowest;
};
ClassPaces class_paces(const Symmetry& sym, int pp, const hw::Topology& topo);

// A class's columns as ranges: "0,2-5".
std::string cells_text(const std::vector<int>& cells);

// An upper bound on the classes make_symmetry() will form, from the layout and the faults alone
// (before the topology is built): for memory and size checks.
int estimate_classes(const workload::ParallelPlan& plan, const spec::ClusterSpec& cluster,
                     bool exact);

}  // namespace stepsim::exec
