// The time of one kernel on one GPU, behind one interface.
//
// Everything that runs a kernel in the simulation asks a KernelModel: the workload describes the
// kernel (its class, precision, FLOPs, HBM bytes and, for a GEMM, the N and K it runs with on
// this GPU) and the model answers with seconds, given the share of the SMs left to it while
// communication kernels hold theirs. Models differ in where their rates come from.
//
// RooflineKernelModel (today's): a kernel's own roofline on the device,
//     max(FLOPs / (achievable(p) · efficiency · sm_share), bytes / HBM bandwidth) + launch overhead
// with the achievable rate per precision from a GEMM microbenchmark and, for GEMMs, the efficiency
// by min(N, K) from the device's table (DeviceSpec). What it leaves out: M and precision in the
// shape table, attention's own rates (it runs at the GEMM rate), sustained clocks under the power
// limit, the gap between dependent kernels.
#pragma once

#include "sim/hw/device_spec.hpp"

namespace stepsim::hw {

enum class KernelClass { gemm, attention, elementwise, embedding, memory };

struct Kernel {
  KernelClass cls = KernelClass::elementwise;
  Precision precision = Precision::bf16;
  double flops = 0.0;
  double hbm_bytes = 0.0;
  double n = 0.0, k = 0.0;  // GEMM: output and reduction dimensions on this GPU
};

class KernelModel {
 public:
  virtual ~KernelModel() = default;
  // Seconds for `k` with `sm_share` of the SMs (0 < sm_share <= 1).
  virtual double seconds(const Kernel& k, double sm_share) const = 0;
  // Seconds for `k`'s arithmetic alone at the rate the model runs it with all SMs: no memory
  // traffic, no launch (the roofline's compute term).
  virtual double math_seconds(const Kernel& k) const = 0;
};

class RooflineKernelModel final : public KernelModel {
 public:
  explicit RooflineKernelModel(const DeviceSpec& device) : device_(device) {}
  double seconds(const Kernel& k, double sm_share) const override;
  double math_seconds(const Kernel& k) const override;

 private:
  double efficiency(const Kernel& k) const;
  const DeviceSpec& device_;
};

}  // namespace stepsim::hw
