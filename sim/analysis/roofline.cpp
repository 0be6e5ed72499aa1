#include "sim/analysis/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/user_error.hpp"
#include "sim/workload/collective_timer.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace stepsim::analysis {

using hw::bytes_per_element;
using hw::Precision;
using net::CollectiveOp;
using net::LinkBytes;
using workload::LayerCost;
using workload::ModelCost;
using workload::OpClass;
using workload::OpCost;
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

std::string group_text(const char* what, net::GroupShape g, const char* name) {
  // The reductions share one algorithm choice: what `auto` runs an all-reduce with.
  return std::string(what) + " (" +
         std::string(net::algorithm_for(net::CollectiveOp::all_reduce, g)) + ") over " + name +
         "=" + std::to_string(g.size) + " on " + std::to_string(g.nodes()) + " node(s)";
}

void add(DeviceWork& w, std::string kind, std::string collective, LinkBytes b) {
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

class Analyzer {
 public:
  Analyzer(const ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost)
      : spec_(spec),
        plan_(plan),
        cost_(cost),
        dev_(spec.cluster.device),
        pr_(spec.training.precision) {
    multi_plane_ = spec.cluster.fabric.kind == hw::FabricKind::multi_plane_fat_tree;
    program_.schedule = spec.parallel.schedule;
    program_.devices = plan.pp;
    program_.stages = plan.stages;
    program_.micro_batches = static_cast<int>(std::min<long long>(plan.micro_batches, 1 << 30));
  }

  DeviceWork device(int d) const {
    DeviceWork w;
    for (const auto& ss : plan_.device_stages[d]) {
      const double mbs = ss.share * static_cast<double>(plan_.micro_batches);
      for (int li : workload::stage_layer_indices(plan_, ss.stage)) {
        layer_compute(w, workload::layer_of(cost_, li), mbs);
        layer_traffic(w, workload::layer_of(cost_, li), mbs);
      }
      pipeline_traffic(w, d, ss, mbs);
    }
    data_parallel_traffic(w, d);
    optimizer_hbm(w, d);
    return w;
  }

 private:
  double tokens_per_gpu(double mbs) const { return mbs * plan_.tokens_per_micro_batch / plan_.tp; }

  void layer_compute(DeviceWork& w, const LayerCost& layer, double mbs) const {
    for (const OpCost& op : layer.ops) {
      const double tokens =
          tokens_per_gpu(mbs) *
          (workload::tp_replicated(op, plan_.tp, spec_.parallel.sequence_parallel) ? plan_.tp : 1);
      const bool again = layer.index >= 0 && workload::is_recomputed(op, spec_.training.recompute);
      const double flops = tokens * (op.fwd_flops * (again ? 2.0 : 1.0) + op.b_flops + op.w_flops);
      const int pi = static_cast<int>(op.precision);
      w.flops[pi] += flops;
      if (flops > 0.0) {
        const auto& rate = dev_.rate(op.precision);
        w.compute_s +=
            flops / (rate.achievable_flops * workload::op_efficiency(dev_, op, plan_.tp));
        w.compute_peak_s += flops / rate.peak_flops;
      }
      // Activations as kernel_time.hpp moves them: the input gradient 2x the forward's bytes, the
      // weight gradient (ops with weights only) 1x, a recomputation 1x. The GPU's weights are read
      // by the forward kernel and by the backward one, per micro-batch (a schedule that runs the
      // weight gradient as a kernel of its own reads them once more, which this bound leaves out).
      const double local_params = workload::op_local_params(op, plan_.tp, plan_.ep);
      w.hbm_bytes +=
          tokens * op.io_bytes * (3.0 + (op.w_flops > 0.0 ? 1.0 : 0.0) + (again ? 1.0 : 0.0)) +
          2.0 * mbs * local_params * bytes_per_element(pr_.params);
    }
  }

  void layer_traffic(DeviceWork& w, const LayerCost& layer, double mbs) const {
    if (layer.index < 0) return;
    const double tokens = tokens_per_gpu(mbs);
    const double h = spec_.model.hidden;
    const double act = bytes_per_element(pr_.activations);
    const bool full = spec_.training.recompute.mode == workload::RecomputeMode::full;
    const bool expert_exchange = layer.moe && plan_.ep > 1;
    if (plan_.tp > 1) {
      // Megatron: 2 all-reduces (or all-gather + reduce-scatter with sequence parallelism) of the
      // hidden state in forward (1 in an MoE layer whose experts are split by ep, not tp), as many
      // in backward, and as many again when the whole layer is recomputed.
      const double count = (expert_exchange ? 1.0 : 2.0) * (full ? 3.0 : 2.0);
      const double s = mbs * plan_.tokens_per_micro_batch * h * act;
      add(w, "tp", group_text("all-reduce", plan_.tp_group(), "tp"),
          net::collective_bytes_per_gpu(CollectiveOp::all_reduce, s, plan_.tp_group()) * count);
    }
    if (layer.moe && plan_.ep > 1) {
      const auto& moe = spec_.model.moe;
      const net::GroupShape ep = plan_.ep_group();
      const int max_nodes = workload::max_target_nodes(moe, ep.nodes());
      const LinkBytes copies = net::node_limited_copies_per_token({moe.top_k, max_nodes, ep});
      auto payload = [&](Precision p) { return workload::a2a_bytes_per_token(h, p); };
      const std::string how =
          "node-limited all-to-all over ep=" + std::to_string(ep.size) + " on " +
          std::to_string(ep.nodes()) + " node(s), " + std::to_string(moe.top_k) + " experts/token" +
          (max_nodes ? ", <= " + std::to_string(max_nodes) + " nodes/token" : "");
      // Forward and backward each move one dispatch-like and one combine-like exchange; a full
      // recomputation repeats the forward's.
      const double passes = full ? 3.0 : 2.0;
      const LinkBytes dispatch = copies * (passes * tokens * payload(pr_.dispatch));
      const LinkBytes combine = copies * (passes * tokens * payload(pr_.combine));
      add(w, "ep_dispatch", how, dispatch);
      add(w, "ep_combine", how, combine);
      // Spread evenly over the other nodes of the group, at least (k - L)/(k - 1) of it goes to
      // nodes beyond the L that share the GPU's leaf.
      const int k = ep.nodes(), leaf_nodes = spec_.cluster.fabric.switch_ports / 2;
      if (k > leaf_nodes && leaf_nodes > 0)
        w.cross_leaf_ib += (dispatch.ib + combine.ib) * (k - leaf_nodes) / (k - 1.0);
    }
  }

  // A stage's activations go forward to the next stage and its input gradients back to the
  // previous one, on whichever device holds the neighbour stage for the same micro-batch: none
  // when it is the device itself (DualPipeV's turn), over NVLink when both ranks' GPUs share a
  // node, else over InfiniBand.
  void pipeline_traffic(DeviceWork& w, int d, const workload::StageShare& ss, double mbs) const {
    if (plan_.stages <= 1) return;
    const double s = tokens_per_gpu(mbs) * spec_.model.hidden * bytes_per_element(pr_.activations);
    const long long m = program_.micro_batches;
    int mb = -1;  // a micro-batch of this share (DualPipe splits them by half)
    for (long long k : {0LL, m / 2, m - 1})
      if (mb < 0 && program_.device_of(ss.stage, static_cast<int>(k)) == d)
        mb = static_cast<int>(k);
    if (mb < 0) return;
    for (int to_stage : {ss.stage + 1, ss.stage - 1}) {
      if (to_stage < 0 || to_stage >= plan_.stages) continue;
      const int to = program_.device_of(to_stage, mb);
      if (to == d) continue;
      const int block = plan_.dp * plan_.tp, gpn = plan_.gpus_per_node;
      const bool same_node = block < gpn && d * block / gpn == to * block / gpn;
      LinkBytes b = net::p2p_bytes(s, same_node);
      // PXN: to a GPU of another plane, over NVLink to the sender's node's GPU on that plane.
      if (!same_node && multi_plane_ && (to - d) * block % gpn != 0) b.nvlink += s;
      add(w, "pp_activations",
          std::string("point-to-point to neighbour stages") +
              (same_node ? " (same node)" : " (other node)"),
          b);
    }
  }

  void data_parallel_traffic(DeviceWork& w, int d) const {
    const auto held = workload::held_params(plan_, cost_, d);
    const double pb = bytes_per_element(pr_.params), gb = bytes_per_element(pr_.grads);
    const int zero = spec_.parallel.zero;
    const double m = static_cast<double>(plan_.micro_batches);
    struct Part {
      double params;
      net::GroupShape group;
      const char* name;
    };
    for (const Part& part :
         {Part{held.dense, plan_.dp_group(), "dp"}, Part{held.routed, plan_.edp_group(), "edp"}}) {
      if (part.params <= 0.0 || part.group.size <= 1) continue;
      auto bytes = [&](CollectiveOp c, double s) {
        return net::collective_bytes_per_gpu(c, s, part.group);
      };
      if (zero == 0) {
        add(w, "dp_grads", group_text("all-reduce", part.group, part.name),
            bytes(CollectiveOp::all_reduce, part.params * gb));
      } else if (zero <= 2) {
        add(w, "dp_grads", group_text("reduce-scatter", part.group, part.name),
            bytes(CollectiveOp::reduce_scatter, part.params * gb));
        add(w, "dp_params", group_text("all-gather", part.group, part.name),
            bytes(CollectiveOp::all_gather, part.params * pb));
      } else {
        add(w, "dp_grads", group_text("reduce-scatter per micro-batch", part.group, part.name),
            bytes(CollectiveOp::reduce_scatter, part.params * gb) * m);
        add(w, "dp_params", group_text("all-gather x2 per micro-batch", part.group, part.name),
            bytes(CollectiveOp::all_gather, part.params * pb) * (2.0 * m));
      }
    }
  }

  void optimizer_hbm(DeviceWork& w, int d) const {
    w.hbm_bytes += workload::optimizer_step_bytes(spec_, plan_, cost_, d);
  }

  const ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const ModelCost& cost_;
  const hw::DeviceSpec& dev_;
  const workload::PrecisionPolicy& pr_;
  workload::PipelineProgram program_;  // for device_of: which device holds a stage
  bool multi_plane_ = false;
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

}  // namespace

Roofline roofline(const ScenarioSpec& spec) {
  check_precisions(spec);
  const ModelCost cost(spec.model, spec.training);
  Roofline r;
  r.plan = workload::make_plan(spec);
  r.scenario = spec.name;
  r.world_size = r.plan.world;
  r.tokens_per_step = static_cast<double>(spec.training.global_batch) * spec.training.seq_len;
  r.params_total = cost.params_total();
  r.params_active = cost.params_active();
  r.flops_per_token = cost.flops_per_token();
  r.causal = spec.training.causal;
  const auto& dev = spec.cluster.device;
  r.sm_share = static_cast<double>(dev.sms - spec.parallel.comm_sms) / dev.sms;

  const Analyzer analyzer(spec, r.plan, cost);
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
    const double compute = w.compute_s / r.sm_share;
    const double hbm = w.hbm_bytes / dev.hbm_bandwidth;
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
  return r;
}

}  // namespace stepsim::analysis
