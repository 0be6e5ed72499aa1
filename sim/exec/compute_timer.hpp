// Times the compute works of a step program on the device's kernel model, once per chain and
// work for every device alike (a device only scales them by its pace, exec/instantiate.cpp).
//
// Besides a work's seconds (hw::KernelModel::run_times, with the SMs compute keeps,
// StepProgram::sm_share), what the executor needs of it when communication shares its GPU
// (exec/step_executor.hpp): Σ t_k² (kernel jitter), the seconds on routed token copies, and the
// seconds that SMs taken by communication kernels stretch. Those of persistent grids come from
// the kernel model as they are; those of tile grids, T_f, are fitted so that T_f·(s0/s − 1) is the
// kernel model's own extra time, wave quantisation included, at the reference share s: the SMs
// the program's largest communication kernel leaves (R, the SMs compute leaves to communication,
// when larger): T_f = (Σ_f t_k(s) − Σ_f t_k(s0)) / (s0/s − 1).
#pragma once

#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/spec/cluster.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::exec {

class ComputeTimer {
 public:
  ComputeTimer(const workload::StepProgram& program, const spec::ClusterSpec& cluster);
  // Work `work` of chain `chain` (a compute work).
  const hw::KernelModel::RunTimes& times(int chain, std::size_t work);
  // Any run of kernels (the step's tail), its seconds alone.
  double run_seconds(const std::vector<hw::Kernel>& kernels) const {
    return kernels_.run_seconds(kernels, program_.sm_share);
  }
  double hbm_bandwidth() const { return kernels_.hbm_bandwidth(); }

 private:
  hw::KernelModel::RunTimes fitted(const std::vector<hw::Kernel>& kernels) const;

  const workload::StepProgram& program_;
  // The device as the framework's host issues to it: a kernel per launch overhead plus the
  // framework's host time per op (StepProgram::host_per_op_s).
  spec::DeviceSpec device_;
  hw::TableKernelModel kernels_;  // the time of every kernel of the step
  double ref_share_ = 1.0;        // the reference SM share of the tile grids' fit
  std::vector<std::vector<hw::KernelModel::RunTimes>> times_;  // per chain and work
};

}  // namespace stepsim::exec
