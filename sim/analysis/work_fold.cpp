#include "sim/analysis/work_fold.hpp"

#include <algorithm>

#include "sim/engine/check.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/workload/collective_options.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::analysis {

using net::CollectiveOp;
using net::LinkBytes;

namespace {

std::string group_text(const char* what, net::GroupShape g, const char* name,
                       std::string_view algorithm) {
  return std::string(what) + " (" + std::string(algorithm) + ") over " + name + "=" +
         std::to_string(g.size) + " on " + std::to_string(g.nodes()) + " node(s)";
}

}  // namespace

std::string_view traffic_row(workload::StepOpKind k) {
  using workload::StepOpKind;
  switch (k) {
    case StepOpKind::tp_reduce:
      return "tp";
    case StepOpKind::ep_dispatch:
      return "ep_dispatch";
    case StepOpKind::ep_combine:
      return "ep_combine";
    case StepOpKind::pp_send:
      return "pp_activations";
    case StepOpKind::dp_grads:
    case StepOpKind::zero_scatter:
      return "dp_grads";
    case StepOpKind::dp_params:
    case StepOpKind::zero_gather:
      return "dp_params";
    case StepOpKind::cp_exchange:
      return "cp";
    default:
      return "";
  }
}

namespace {

void add_to_rows(std::vector<TrafficRow>& rows, std::string_view kind, const std::string& label,
                 LinkBytes b) {
  for (auto& row : rows)
    if (row.kind == kind && row.collective == label) {
      row.bytes += b;
      return;
    }
  rows.push_back({std::string(kind), label, b});
}

}  // namespace

void DeviceWork::merge(const DeviceWork& w, double n) {
  for (std::size_t p = 0; p < flops.size(); ++p) flops[p] += w.flops[p] * n;
  compute_s += w.compute_s * n;
  compute_peak_s += w.compute_peak_s * n;
  hbm_bytes += w.hbm_bytes * n;
  comm += w.comm * n;
  for (const auto& row : w.traffic) add_to_rows(traffic, row.kind, row.collective, row.bytes * n);
  cross_leaf_ib += w.cross_leaf_ib * n;
  cross_pod_ib += w.cross_pod_ib * n;
}

double ResourceTimes::bound() const {
  return *std::max_element(t.begin(), t.end());
}

Resource ResourceTimes::limited_by() const {
  return static_cast<Resource>(std::max_element(t.begin(), t.end()) - t.begin());
}

ResourceTimes resource_times(const DeviceWork& w, const spec::ClusterSpec& cl,
                             double hbm_bandwidth) {
  const double ib_rate = cl.fabric.nic.bandwidth;
  const double uplink_rate = cl.fabric.nic.bandwidth / cl.fabric.oversubscription;
  ResourceTimes r;
  r.t[0] = w.compute_s;
  r.t[1] = w.hbm_bytes / hbm_bandwidth;
  r.t[2] = w.comm.nvlink > 0.0 ? w.comm.nvlink / cl.nvlink.bandwidth : 0.0;
  const double pod_rate = uplink_rate / cl.fabric.pod_oversubscription;
  r.t[3] = w.comm.ib > 0.0 ? std::max({w.comm.ib / ib_rate, w.cross_leaf_ib / uplink_rate,
                                       w.cross_pod_ib / pod_rate})
                           : 0.0;
  return r;
}

void sort_rows(std::vector<TrafficRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::find(std::begin(kTrafficRows), std::end(kTrafficRows), a.kind) <
           std::find(std::begin(kTrafficRows), std::end(kTrafficRows), b.kind);
  });
}

WorkFold::WorkFold(const spec::ClusterSpec& cluster, const workload::ParallelPlan& plan,
                   const hw::KernelModel& kernels, double sm_share, double send_bytes, bool rows)
    : cluster_(cluster),
      plan_(plan),
      kernels_(kernels),
      dev_(cluster.device),
      sm_share_(sm_share),
      send_bytes_(send_bytes),
      rows_(rows),
      pxn_(cluster.fabric.pxn()) {}

void WorkFold::add_row(DeviceWork& w, std::string_view kind, const std::string& label,
                       LinkBytes b) const {
  if (b.nvlink <= 0.0 && b.ib <= 0.0) return;
  w.comm += b;
  if (rows_) add_to_rows(w.traffic, kind, label, b);
}

void WorkFold::add(DeviceWork& w, const workload::Work& work, double n) const {
  for (const hw::Kernel& k : work.kernels) {
    w.flops[static_cast<int>(k.precision)] += k.flops * n;
    if (k.flops > 0.0) {
      w.compute_s += kernels_.math_seconds(k, sm_share_) * n;
      w.compute_peak_s += k.flops / dev_.rate(k.precision).peak_flops * n;
    }
    w.hbm_bytes += k.hbm_bytes * n;
  }
  for (const workload::CollectiveWork& c : work.collectives) collective(w, work.kind, c, n);
}

void WorkFold::collective(DeviceWork& w, workload::StepOpKind kind,
                          const workload::CollectiveWork& c, double n) const {
  const net::GroupShape g = plan_.group(c.group);
  if (c.bytes <= 0.0 || g.size <= 1) return;
  const std::string_view row = traffic_row(kind);
  // The bytes of the algorithm the program resolved for it, which the simulation runs.
  const net::AlgorithmDef* algorithm = net::find_algorithm(c.options.algorithm);
  STEPSIM_CHECK(algorithm, "a collective of the program without its resolved algorithm");
  net::ShapeInput in{c.op, c.bytes, g};
  in.pxn = pxn_;
  in.top_k = c.options.top_k;
  in.max_nodes = c.options.max_nodes;
  in.experts = c.options.experts;
  const LinkBytes b = algorithm->bytes_per_gpu(in) * n;
  if (algorithm->leaving) {
    // What must leave the leaf, and in a clos3 the pod, whose aggregation tier is
    // oversubscribed again.
    const int leaf_nodes = cluster_.fabric.nodes_per_leaf(cluster_.gpus_per_node);
    w.cross_leaf_ib += algorithm->leaving(b.ib, g, leaf_nodes);
    if (cluster_.fabric.kind == spec::FabricKind::clos3)
      w.cross_pod_ib += algorithm->leaving(b.ib, g, leaf_nodes * cluster_.fabric.leaves_per_pod);
  }
  if (!rows_) {
    add_row(w, row, std::string(), b);
    return;
  }
  const std::string_view display =
      algorithm->display.empty() ? algorithm->name : algorithm->display;
  if (c.op == CollectiveOp::dispatch || c.op == CollectiveOp::combine) {
    add_row(w, row,
            std::string(display) + " over ep=" + std::to_string(g.size) + " on " +
                std::to_string(g.nodes()) + " node(s), " + std::to_string(in.top_k) +
                " experts/token" +
                (in.max_nodes ? ", <= " + std::to_string(in.max_nodes) + " nodes/token" : ""),
            b);
    return;
  }
  if (kind == workload::StepOpKind::cp_exchange) {
    const char* what = c.op == CollectiveOp::send_recv    ? "ring shift of K, V or dK, dV"
                       : c.op == CollectiveOp::all_gather ? "all-gather of K, V"
                       : c.op == CollectiveOp::reduce_scatter
                           ? "reduce-scatter of dK, dV"
                           : "all-to-all of Q, K, V and the output or their gradients";
    const char* name = c.group == workload::GroupRole::cp_ring  ? "cp ring"
                       : c.group == workload::GroupRole::cp_a2a ? "cp a2a"
                                                                : "cp";
    add_row(w, row, group_text(what, g, name, algorithm->name) + " per layer per micro-batch", b);
    return;
  }
  const char* name = c.group == workload::GroupRole::edp  ? "edp"
                     : c.group == workload::GroupRole::dp ? "dp"
                                                          : "tp";
  const int zero = plan_.zero;
  // ZeRO-3: per gathered unit (its implementation's, spec/zero3.hpp), every micro-batch; the ops
  // column counts them.
  const spec::Zero3Spec& z3 = plan_.zero3;
  const std::string gathers =
      std::string("all-gather per ") + (z3.unit == spec::Zero3Unit::layer ? "layer" : "module") +
      (z3.reshard_after_forward ? " in forward and backward" : " in forward") + " per micro-batch";
  const std::string what = c.op == CollectiveOp::all_reduce ? "all-reduce"
                           : c.op == CollectiveOp::all_gather
                               ? (zero == 3 ? gathers : "all-gather")
                               : (zero == 3 ? "reduce-scatter per micro-batch" : "reduce-scatter");
  add_row(w, row, group_text(what.c_str(), g, name, algorithm->name), b);
}

bool WorkFold::same_node(int d, int to) const {
  return plan_.same_node(d, to);
}

void WorkFold::send(DeviceWork& w, int d, int to, double n, int kinds) const {
  const double s = send_bytes_;
  const bool near = same_node(d, to);
  LinkBytes b = net::p2p_bytes(s, near);
  // Across planes (the two GPUs at other local indices), PXN first hops over NVLink.
  if (!near && pxn_ && (plan_.first_gpu(to) - plan_.first_gpu(d)) % plan_.gpus_per_node != 0)
    b.nvlink += s;
  static const std::string kWhere[] = {
      "point-to-point to neighbour stages", "point-to-point to neighbour stages (same node)",
      "point-to-point to neighbour stages (other node)",
      "point-to-point to neighbour stages (same node and other nodes)"};
  add_row(w, "pp_activations", kWhere[kinds], b * n);
}

}  // namespace stepsim::analysis
