#include "sim/analysis/roofline.hpp"

#include "sim/net/tuner.hpp"
#include "sim/workload/collective_options.hpp"

#include <algorithm>

#include <map>

#include "sim/engine/user_error.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/step_program.hpp"

namespace stepsim::analysis {

using hw::Precision;
using net::CollectiveOp;
using net::LinkBytes;
using workload::ModelCost;
using workload::ParallelPlan;
using workload::ScenarioSpec;

std::string_view to_string(Resource r) {
  switch (r) {
    case Resource::compute:
      return "compute";
    case Resource::hbm:
      return "hbm";
    case Resource::nvlink:
      return "nvlink";
    case Resource::ib:
      return "ib";
  }
  return "?";
}

namespace {

struct DeviceWork {
  std::array<double, 4> flops{};
  double compute_s = 0.0;
  double compute_peak_s = 0.0;
  double hbm_bytes = 0.0;
  std::vector<TrafficRow> traffic;
  LinkBytes comm;
  double cross_leaf_ib = 0.0;  // of comm.ib, bytes that must leave the GPU's leaf switch
};

std::string group_text(const char* what, net::GroupShape g, const char* name,
                       std::string_view algorithm) {
  return std::string(what) + " (" + std::string(algorithm) + ") over " + name + "=" +
         std::to_string(g.size) + " on " + std::to_string(g.nodes()) + " node(s)";
}

void add_row(DeviceWork& w, std::string kind, std::string collective, LinkBytes b) {
  if (b.nvlink <= 0.0 && b.ib <= 0.0) return;
  for (auto& row : w.traffic)
    if (row.kind == kind) {
      row.bytes += b;
      w.comm += b;
      return;
    }
  w.traffic.push_back({std::move(kind), std::move(collective), b});
  w.comm += b;
}

// The row a communication work's bytes go to.
std::string_view row_kind(workload::StepOpKind k) {
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
    default:
      return "";
  }
}

// The work of one rank, folded over the program: each chain's work once, times the chunks that
// run it; each pipeline send once per destination, times its count; the tail once.
class Analyzer {
 public:
  Analyzer(const ScenarioSpec& spec, const ParallelPlan& plan, const workload::StepProgram& program,
           const hw::KernelModel& kernels)
      : spec_(spec),
        plan_(plan),
        program_(program),
        kernels_(kernels),
        dev_(spec.cluster.device),
        multi_plane_(spec.cluster.fabric.kind == hw::FabricKind::multi_plane_fat_tree) {
    for (const workload::Chain& c : program.chains) {
      DeviceWork w;
      for (const workload::Work& work : c) add(w, work, 1.0);
      chains_.push_back(std::move(w));
    }
  }

  DeviceWork device(int d) const {
    std::vector<double> runs(program_.chains.size(), 0.0);
    std::map<int, double> sends;  // destination rank -> sends
    for (const workload::Instruction& in : program_.ranks[d])
      for (const workload::Chunk& c : in.chunks) {
        runs[c.chain] += 1.0;
        if (c.send_to >= 0) sends[c.send_to] += 1.0;
      }
    DeviceWork w;
    for (std::size_t c = 0; c < runs.size(); ++c)
      if (runs[c] > 0.0) merge(w, chains_[c], runs[c]);
    int kinds = 0;  // 1: a neighbour on the same node, 2: on another node
    for (const auto& [to, n] : sends) kinds |= same_node(d, to) ? 1 : 2;
    for (const auto& [to, n] : sends) send(w, d, to, n, kinds);
    for (const workload::TailWork& t : program_.tail[d]) add(w, t.work, 1.0);
    // Rows in a fixed order, whatever order the program meets them in.
    static constexpr std::string_view kOrder[] = {
        "tp", "ep_dispatch", "ep_combine", "pp_activations", "dp_grads", "dp_params"};
    std::stable_sort(w.traffic.begin(), w.traffic.end(), [](const auto& a, const auto& b) {
      return std::find(std::begin(kOrder), std::end(kOrder), a.kind) <
             std::find(std::begin(kOrder), std::end(kOrder), b.kind);
    });
    return w;
  }

 private:
  static void merge(DeviceWork& into, const DeviceWork& w, double n) {
    for (std::size_t p = 0; p < into.flops.size(); ++p) into.flops[p] += w.flops[p] * n;
    into.compute_s += w.compute_s * n;
    into.compute_peak_s += w.compute_peak_s * n;
    into.hbm_bytes += w.hbm_bytes * n;
    for (const auto& row : w.traffic) add_row(into, row.kind, row.collective, row.bytes * n);
    into.cross_leaf_ib += w.cross_leaf_ib * n;
  }

  // A work, n times: its kernels' FLOPs at the achievable rate and their HBM bytes; its
  // collectives' bytes per link class from their algorithms' closed forms.
  void add(DeviceWork& w, const workload::Work& work, double n) const {
    for (const hw::Kernel& k : work.kernels) {
      w.flops[static_cast<int>(k.precision)] += k.flops * n;
      if (k.flops > 0.0) {
        w.compute_s += kernels_.math_seconds(k, program_.sm_share) * n;
        w.compute_peak_s += k.flops / dev_.rate(k.precision).peak_flops * n;
      }
      w.hbm_bytes += k.hbm_bytes * n;
    }
    for (const workload::CollectiveWork& c : work.collectives) collective(w, work.kind, c, n);
  }

  net::GroupShape shape(workload::GroupRole g) const {
    switch (g) {
      case workload::GroupRole::tp:
        return plan_.tp_group();
      case workload::GroupRole::ep:
        return plan_.ep_group();
      case workload::GroupRole::dp:
        return plan_.dp_group();
      case workload::GroupRole::edp:
        return plan_.edp_group();
    }
    return {};
  }

  void collective(DeviceWork& w, workload::StepOpKind kind, const workload::CollectiveWork& c,
                  double n) const {
    const net::GroupShape g = shape(c.group);
    if (c.bytes <= 0.0 || g.size <= 1) return;
    const std::string_view row = row_kind(kind);
    if (c.op == CollectiveOp::dispatch || c.op == CollectiveOp::combine) {
      const auto& moe = spec_.model.moe;
      const int max_nodes = workload::max_target_nodes(moe, g.nodes());
      const LinkBytes b =
          net::node_limited_copies_per_token({moe.top_k, max_nodes, g, moe.experts}) *
          (c.bytes * n);
      add_row(w, std::string(row),
              "DeepEP dispatch/combine over ep=" + std::to_string(g.size) + " on " +
                  std::to_string(g.nodes()) + " node(s), " + std::to_string(moe.top_k) +
                  " experts/token" +
                  (max_nodes ? ", <= " + std::to_string(max_nodes) + " nodes/token" : ""),
              b);
      // Spread evenly over the other nodes of the group, at least (k - L)/(k - 1) of it goes to
      // nodes beyond the L that share the GPU's leaf.
      const int k = g.nodes(), leaf_nodes = spec_.cluster.fabric.switch_ports / 2;
      if (k > leaf_nodes && leaf_nodes > 0) w.cross_leaf_ib += b.ib * (k - leaf_nodes) / (k - 1.0);
      return;
    }
    // The bytes of the algorithm the simulation runs: the scenario's choice or the tuner's.
    const net::PlanOptions o = workload::plan_options(
        spec_, plan_, workload::traffic_kind(c.group, c.op, spec_.parallel.zero), c.op, g);
    const net::Choice choice = net::tune(c.op, c.bytes, g, true, spec_.cluster, o);
    const LinkBytes b = choice.algorithm->bytes_per_gpu({c.op, c.bytes, g}) * n;
    const char* name = c.group == workload::GroupRole::edp  ? "edp"
                       : c.group == workload::GroupRole::dp ? "dp"
                                                            : "tp";
    const int zero = spec_.parallel.zero;
    const char* what = c.op == CollectiveOp::all_reduce ? "all-reduce"
                       : c.op == CollectiveOp::all_gather
                           ? (zero == 3 ? "all-gather x2 per micro-batch" : "all-gather")
                           : (zero == 3 ? "reduce-scatter per micro-batch" : "reduce-scatter");
    add_row(w, std::string(row), group_text(what, g, name, choice.algorithm->name), b);
  }

  // n pipeline sends from rank d to rank `to`: over NVLink when both ranks' GPUs share a node,
  // else over InfiniBand (with PXN, to a GPU of another plane, over NVLink first to the sender's
  // node's GPU on that plane).
  bool same_node(int d, int to) const {
    const int block = plan_.dp * plan_.tp, gpn = plan_.gpus_per_node;
    return block < gpn && d * block / gpn == to * block / gpn;
  }
  // `kinds`: which neighbours the rank has (1 same node, 2 other nodes, 3 both), for the label.
  void send(DeviceWork& w, int d, int to, double n, int kinds) const {
    const double s = program_.send_bytes;
    const int block = plan_.dp * plan_.tp, gpn = plan_.gpus_per_node;
    const bool near = same_node(d, to);
    LinkBytes b = net::p2p_bytes(s, near);
    if (!near && multi_plane_ && (to - d) * block % gpn != 0) b.nvlink += s;
    static constexpr const char* kWhere[] = {"", " (same node)", " (other node)",
                                             " (same node and other nodes)"};
    add_row(w, "pp_activations", std::string("point-to-point to neighbour stages") + kWhere[kinds],
            b * n);
  }

  const ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const workload::StepProgram& program_;
  const hw::KernelModel& kernels_;
  const hw::DeviceSpec& dev_;
  bool multi_plane_ = false;
  std::vector<DeviceWork> chains_;  // per chain: its work once
};

void check_precisions(const ScenarioSpec& spec) {
  const auto& pr = spec.training.precision;
  const auto& dev = spec.cluster.device;
  const std::pair<Precision, const char*> used[] = {
      {pr.gemm, "gemm"}, {pr.attention, "attention"}, {pr.head, "head"}, {pr.router, "router"}};
  for (const auto& [p, key] : used)
    if (!dev.supports(p))
      throw engine::UserError(spec.where.at(std::string("training.precision.") + key),
                              "device '" + dev.name + "' has no " + std::string(hw::to_string(p)) +
                                  " rate for " + key + " arithmetic",
                              "use a precision the device lists under compute (e.g. bf16)");
}

// The program lays out every chunk of the step: refuse one too large to hold.
void check_program_size(const ScenarioSpec& spec, const ParallelPlan& plan) {
  // About 90 B a chunk while the program is built (the schedule's instruction, the program's),
  // so 0.4 GB at most; a step the simulation would accept (--max-ops) has fewer.
  constexpr double kMaxChunks = 4e6;
  const double chunks = static_cast<double>(plan.micro_batches) * plan.stages * 3.0;
  if (chunks > kMaxChunks)
    throw engine::UserError(spec.where.at("training.global_batch"),
                            "the step has " + std::to_string(plan.micro_batches) +
                                " micro-batches x " + std::to_string(plan.stages) +
                                " stages, about " + std::to_string(static_cast<long long>(chunks)) +
                                " chunks of work to lay out, more than the limit of " +
                                std::to_string(static_cast<long long>(kMaxChunks)),
                            "use fewer or larger micro-batches (training.micro_batch)");
}

}  // namespace

Roofline roofline(const ScenarioSpec& spec, workload::StepProgram* program_out) {
  check_precisions(spec);
  const ModelCost cost(spec.model, spec.training);
  Roofline r;
  r.plan = workload::make_plan(spec);
  check_program_size(spec, r.plan);
  workload::StepProgram program = workload::build_program(spec, r.plan, cost);
  r.scenario = spec.name;
  r.world_size = r.plan.world;
  r.tokens_per_step = static_cast<double>(spec.training.global_batch) * spec.training.seq_len;
  r.params_main = cost.params_main();
  r.params_mtp = cost.params_mtp();
  r.params_active = cost.params_active();
  r.flops_per_token = cost.flops_per_token();
  r.causal = spec.training.causal;
  const auto& dev = spec.cluster.device;
  r.sm_share = program.sm_share;

  const hw::TableKernelModel kernels(dev);
  const Analyzer analyzer(spec, r.plan, program, kernels);
  const auto& cl = spec.cluster;
  const double ib_rate = cl.fabric.nic.bandwidth, ib_peak = cl.fabric.nic.peak_bandwidth;
  const double uplink_rate =
      cl.fabric.nic.bandwidth / cl.fabric.oversubscription;  // per GPU, leaf to spine
  double step_flops = 0.0;
  for (int d = 0; d < r.plan.pp; ++d) {
    const DeviceWork w = analyzer.device(d);
    double flops = 0.0;
    for (double f : w.flops) flops += f;
    step_flops += flops * r.plan.dp * r.plan.tp;
    const double compute = w.compute_s;
    const double hbm = w.hbm_bytes / kernels.hbm_bandwidth();
    const double nvl = w.comm.nvlink > 0.0 ? w.comm.nvlink / cl.nvlink.bandwidth : 0.0;
    const double ib =
        w.comm.ib > 0.0 ? std::max(w.comm.ib / ib_rate, w.cross_leaf_ib / uplink_rate) : 0.0;
    const std::array<double, 4> t{compute, hbm, nvl, ib};
    const auto it = std::max_element(t.begin(), t.end());
    r.per_rank.push_back({flops, w.comm, *it});
    if (d > 0 && *it <= r.bound_s) continue;
    r.device = d;
    r.bound_s = *it;
    r.limited_by = static_cast<Resource>(it - t.begin());
    r.flops_by_precision = w.flops;
    r.flops_per_gpu = flops;
    r.compute_s = compute;
    r.compute_peak_s = w.compute_peak_s;
    r.hbm_bytes = w.hbm_bytes;
    r.hbm_s = hbm;
    r.hbm_peak_s = w.hbm_bytes / dev.hbm_bandwidth;
    r.hbm_bandwidth = kernels.hbm_bandwidth();
    r.traffic = w.traffic;
    r.comm_bytes = w.comm;
    r.nvlink_s = nvl;
    r.ib_s = ib;
    r.nvlink_peak_s = nvl > 0.0 ? w.comm.nvlink / cl.nvlink.peak_bandwidth : 0.0;
    r.ib_peak_s = ib > 0.0 ? std::max(w.comm.ib / ib_peak, w.cross_leaf_ib / uplink_rate) : 0.0;
  }
  r.flops_per_gpu_mean = step_flops / r.world_size;
  r.comm_to_compute = std::max(r.nvlink_s, r.ib_s) / r.compute_s;
  r.memory = workload::memory_per_gpu(spec, r.plan, cost);
  if (program_out) *program_out = std::move(program);
  return r;
}

}  // namespace stepsim::analysis
