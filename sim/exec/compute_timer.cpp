#include "sim/exec/compute_timer.hpp"

#include <algorithm>

#include "sim/workload/collective_options.hpp"

namespace stepsim::exec {

namespace {

spec::DeviceSpec as_issued(spec::DeviceSpec device, double host_per_op_s) {
  device.launch_overhead_s += host_per_op_s;
  return device;
}

}  // namespace

ComputeTimer::ComputeTimer(const workload::StepProgram& program, const spec::ClusterSpec& cluster)
    : program_(program),
      device_(as_issued(cluster.device, program.host_per_op_s)),
      kernels_(device_) {
  const int sms = cluster.device.sms;
  const int held = std::max(program.comm_sms, workload::largest_held_sms(program, cluster));
  if (sms > 0) ref_share_ = static_cast<double>(std::max(1, sms - held)) / sms;
  times_.resize(program.chains.size());
}

const hw::KernelModel::RunTimes& ComputeTimer::times(int chain, std::size_t work) {
  auto& t = times_[static_cast<std::size_t>(chain)];
  const auto& works = program_.chains[static_cast<std::size_t>(chain)];
  if (t.empty()) t.assign(works.size(), {-1.0});
  if (t[work].seconds < 0.0) t[work] = fitted(works[work].kernels);
  return t[work];
}

hw::KernelModel::RunTimes ComputeTimer::fitted(const std::vector<hw::Kernel>& kernels) const {
  hw::KernelModel::RunTimes r = kernels_.run_times(kernels, program_.sm_share);
  if (ref_share_ < program_.sm_share) {
    const double at_ref = kernels_.run_times(kernels, ref_share_).sm_scaled;
    r.sm_scaled = std::max(0.0, at_ref - r.sm_scaled) / (program_.sm_share / ref_share_ - 1.0);
  }
  return r;
}

}  // namespace stepsim::exec
