// The roofline's arithmetic for one piece of work: what a work of the step program (a run of
// kernels, a collective, a pipeline send) costs each resource of the GPU that runs it. The
// roofline (roofline.hpp) folds it over a whole step program; the layout search's bound
// (layout_bound.hpp) over cached per-layer works. Both therefore count a work the same way:
//  - kernels: FLOPs per precision, seconds at the achievable rate of their class and shape on
//    the SMs left to them (KernelModel::math_seconds), seconds at the datasheet peak, HBM bytes;
//  - collectives: bytes per link class from the closed form of the algorithm the simulation
//    runs (the scenario's choice or the tuner's), with the bytes that must leave the leaf switch
//    where the algorithm says (net/algorithm/algorithm.hpp: the expert dispatch and combine);
//  - pipeline sends: NVLink when both ranks' GPUs share a node, else InfiniBand, plus an NVLink
//    hop with PXN to a GPU of another plane.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/net/collective_cost.hpp"
#include "sim/spec/cluster.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::analysis {

// Words are JSON keys; phrases are for people.
enum class Resource { compute, hbm, nvlink, ib };
inline constexpr spec::Names<Resource, 4> kResources{
    {{"compute"}, {"hbm", "HBM"}, {"nvlink", "NVLink"}, {"ib", "InfiniBand"}}};

// One row per kind of traffic and collective: a kind whose dense and expert parts run over
// different groups or algorithms (dp and edp) has a row for each.
struct TrafficRow {
  std::string kind;        // "dp_grads", "dp_params", "pp_activations", "ep_dispatch", ...
  std::string collective;  // e.g. "all-reduce (hierarchical) over dp=128"
  net::LinkBytes bytes;    // per GPU per step
};

// The work of one GPU, added up.
struct DeviceWork {
  std::array<double, 4> flops{};  // by precision
  double compute_s = 0.0;
  double compute_peak_s = 0.0;
  double hbm_bytes = 0.0;
  std::vector<TrafficRow> traffic;  // only when the fold keeps rows
  net::LinkBytes comm;
  double cross_leaf_ib = 0.0;  // of comm.ib, bytes that must leave the GPU's leaf switch
  double cross_pod_ib = 0.0;   // of those, bytes that must leave its pod (clos3)

  // Adds n times `w` (its rows too, when it has any).
  void merge(const DeviceWork& w, double n);
};

class WorkFold {
 public:
  // `rows`: keep the traffic rows with their labels (the roofline report); the layout search
  // needs the sums alone.
  WorkFold(const spec::ClusterSpec& cluster, const workload::ParallelPlan& plan,
           const hw::KernelModel& kernels, double sm_share, double send_bytes, bool rows);

  // A work, n times.
  void add(DeviceWork& w, const workload::Work& work, double n) const;
  // n pipeline sends from pipeline rank d to rank `to`; `kinds` says which neighbours d has
  // (1 same node, 2 other nodes, 3 both), for the label.
  void send(DeviceWork& w, int d, int to, double n, int kinds) const;
  bool same_node(int d, int to) const;

 private:
  void collective(DeviceWork& w, workload::StepOpKind kind, const workload::CollectiveWork& c,
                  double n) const;
  void add_row(DeviceWork& w, std::string_view kind, const std::string& label,
               net::LinkBytes b) const;

  const spec::ClusterSpec& cluster_;
  const workload::ParallelPlan& plan_;
  const hw::KernelModel& kernels_;
  const spec::DeviceSpec& dev_;
  double sm_share_ = 1.0;
  double send_bytes_ = 0.0;
  bool rows_ = true;
  bool pxn_ = false;
};

// A GPU's time per resource: compute at the achievable rate; HBM bytes at the measured
// bandwidth of a large memory-bound kernel; NVLink bytes at its achievable bandwidth; InfiniBand
// the largest of the NIC time, the cross-leaf bytes over the leaf uplinks' share (NIC
// bandwidth / oversubscription) and, in a clos3, the cross-pod bytes over the aggregation tier's
// share (that / pod_oversubscription). The bound is the largest.
struct ResourceTimes {
  std::array<double, 4> t{};  // by Resource
  double bound() const;
  Resource limited_by() const;
};
ResourceTimes resource_times(const DeviceWork& w, const spec::ClusterSpec& cluster,
                             double hbm_bandwidth);

// The traffic row a communication op's bytes go to ("tp", "ep_dispatch", ...; "" for compute).
std::string_view traffic_row(workload::StepOpKind k);

// The traffic rows, in the reports' fixed order.
inline constexpr std::string_view kTrafficRows[] = {
    "tp", "cp", "ep_dispatch", "ep_combine", "pp_activations", "dp_grads", "dp_params"};

// Rows in that order.
void sort_rows(std::vector<TrafficRow>& rows);

}  // namespace stepsim::analysis
