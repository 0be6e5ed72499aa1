// One accelerator: its arithmetic rates per precision, memory, launch costs, and the calibration
// tables its kernels are timed from (kernel_tables.hpp, kernel_model.hpp).
//
// Rates come in two flavours, kept side by side because the difference is the point of a
// roofline done honestly: `peak` is the datasheet figure, `achievable` a measured GEMM rate at a
// large, well-shaped problem, used where no table covers a kernel.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/spec/kernel_tables.hpp"
#include "sim/spec/precision.hpp"

namespace stepsim::spec {

struct ComputeRate {
  double peak_flops = 0.0;        // flop/s, datasheet (dense)
  double achievable_flops = 0.0;  // flop/s, measured GEMM

  friend bool operator==(const ComputeRate&, const ComputeRate&) = default;
};

// A communication kernel's time beside the compute on its GPU, as a factor of its time alone, by
// the kind of compute kernel beside it: compute-bound (GEMMs, attention) or memory-bound
// (element-wise, norms, copies). Beyond the HBM bandwidth and SMs the executor shares on its own
// (exec/step_executor.hpp), co-resident kernels contend for the L2, shared memory and issue
// slots; this is what a microbenchmark of the pair measures beyond those. 1: no such loss (the
// default; no shipped device sets it, see topologies/h800.yaml). `source` names the measurement.
struct CommBesideCompute {
  double compute_bound = 1.0, memory_bound = 1.0;
  std::string source;
  bool active() const { return compute_bound > 1.0 || memory_bound > 1.0; }

  friend bool operator==(const CommBesideCompute&, const CommBesideCompute&) = default;
};

struct DeviceSpec {
  std::string name;
  int sms = 0;
  // The share of SMs compute kernels keep while communication kernels hold `comm_sms`.
  double compute_sm_share(int comm_sms) const {
    return sms > 0 ? static_cast<double>(sms - comm_sms) / sms : 1.0;
  }
  double memory_bytes = 0.0;       // usable HBM capacity
  double hbm_bandwidth = 0.0;      // bytes/s
  double launch_overhead_s = 0.0;  // host time to launch one kernel
  double kernel_gap_s = 0.0;       // idle between two dependent kernels of one stream
  CommBesideCompute comm_beside_compute;
  std::array<std::optional<ComputeRate>, kPrecisionCount> rates;
  KernelTables tables;

  bool supports(Precision p) const { return rates[static_cast<int>(p)].has_value(); }
  const ComputeRate& rate(Precision p) const;

  friend bool operator==(const DeviceSpec&, const DeviceSpec&) = default;
};

}  // namespace stepsim::spec
