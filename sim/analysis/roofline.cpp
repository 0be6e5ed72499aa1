#include "sim/analysis/roofline.hpp"

#include <algorithm>

namespace stepsim::analysis {

using net::CollectiveOp;
using net::LinkBytes;

namespace {

// The work of one rank, folded over the program: each chain's work once, times the chunks that
// run it; each pipeline send once per destination, times its count; the tail once.
class Analyzer {
 public:
  Analyzer(const spec::ClusterSpec& cluster, const workload::StepProgram& program,
           const hw::KernelModel& kernels)
      : program_(program),
        fold_(cluster, program.plan, kernels, program.sm_share, program.send_bytes, true) {
    for (const workload::Chain& c : program.chains) {
      DeviceWork w;
      for (const workload::Work& work : c) fold_.add(w, work, 1.0);
      chains_.push_back(std::move(w));
    }
  }

  DeviceWork device(int d) const {
    struct Visit {
      const Analyzer& a;
      int d;
      DeviceWork w;
      void chain(int c, double runs) { w.merge(a.chains_[c], runs); }
      void sends(const std::vector<double>& to) {
        int kinds = 0;  // 1: a neighbour on the same node, 2: on another node
        for (std::size_t r = 0; r < to.size(); ++r)
          if (to[r] > 0.0) kinds |= a.fold_.same_node(d, static_cast<int>(r)) ? 1 : 2;
        for (std::size_t r = 0; r < to.size(); ++r)
          if (to[r] > 0.0) a.fold_.send(w, d, static_cast<int>(r), to[r], kinds);
      }
      void tail(const workload::Work& work) { a.fold_.add(w, work, 1.0); }
    };
    Visit v{*this, d, {}};
    workload::fold(program_, d, v);
    sort_rows(v.w.traffic);
    return v.w;
  }

 private:
  const workload::StepProgram& program_;
  WorkFold fold_;
  std::vector<DeviceWork> chains_;  // per chain: its work once
};

}  // namespace

Roofline roofline(const workload::StepProgram& program, const spec::ClusterSpec& cl) {
  Roofline r;
  const workload::ParallelPlan& plan = program.plan;
  const auto& dev = cl.device;
  r.sm_share = program.sm_share;
  const hw::TableKernelModel kernels(dev);
  const Analyzer analyzer(cl, program, kernels);
  const double ib_peak = cl.fabric.nic.peak_bandwidth;
  const double uplink_rate =
      cl.fabric.nic.bandwidth / cl.fabric.oversubscription;  // per GPU, leaf to spine
  double step_flops = 0.0;
  for (int d = 0; d < plan.pp; ++d) {
    const DeviceWork w = analyzer.device(d);
    double flops = 0.0;
    for (double f : w.flops) flops += f;
    step_flops += flops * plan.gpus_per_rank();
    const ResourceTimes times = resource_times(w, cl, kernels.hbm_bandwidth());
    const double compute = times.t[0], hbm = times.t[1], nvl = times.t[2], ib = times.t[3];
    r.per_rank.push_back({flops, w.comm, times.bound(), w.traffic});
    if (d > 0 && times.bound() <= r.bound_s) continue;
    r.device = d;
    r.bound_s = times.bound();
    r.limited_by = times.limited_by();
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
    r.ib_peak_s = ib > 0.0
                      ? std::max({w.comm.ib / ib_peak, w.cross_leaf_ib / uplink_rate,
                                  w.cross_pod_ib * cl.fabric.pod_oversubscription / uplink_rate})
                      : 0.0;
  }
  r.flops_per_gpu_mean = step_flops / plan.world;
  r.comm_to_compute = std::max(r.nvlink_s, r.ib_s) / r.compute_s;
  return r;
}

}  // namespace stepsim::analysis
