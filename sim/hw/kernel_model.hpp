// The time of one kernel on one GPU, behind one interface, from the device's calibration tables.
//
// Everything that runs a kernel in the simulation asks a KernelModel: the workload describes the
// kernel (its class, shape, precision, FLOPs and HBM bytes) and the model answers with seconds,
// given the share of the SMs left to it while communication kernels hold theirs.
//
// TableKernelModel times each class (kernel.hpp: one file each) from its measured rows
// (kernel_tables.hpp, rate_table.hpp):
//  - GEMM (plain or grouped, per precision): the rows are normalised by what the shape itself
//    allows, and that fraction is interpolated:
//        rate(shape) = f(shape) · min(peak·share, AI · HBM) · q(shape)
//    with AI = FLOPs / (A + B + C bytes) the shape's arithmetic intensity, and q its wave
//    quantisation: output tiles of 128×128 per group, issued in waves over the SMs left,
//        q = (G·M·N / 128²) / (⌈tiles / SMs⌉ · SMs)       (compute-bound shapes only)
//    (NVIDIA, "Matrix Multiplication Background User's Guide": tile and wave quantisation).
//    f is interpolated in log2(M, N, K, G) with a trend in log2 K (a deeper reduction amortises
//    a tile's prologue and epilogue), so it reproduces each row and follows the table between.
//    A GEMM also takes at least its own bytes (operands, and the fp32 gradient a weight gradient
//    reads and writes) at the measured memory bandwidth.
//    FP16 uses the BF16 rows when it has none of its own (the same tensor-core rate). Each pass
//    (fprop, dgrad, wgrad: the kernel's role) has its table: the rows measured for that pass, or
//    else the rows of any pass (a forward GEMM's), so a library's weight-gradient kernel is timed
//    from its own measurements where a table has them.
//  - Attention (per precision, pass and causality): the fraction of the peak, interpolated in
//    log2(seq, head_dim) with a trend in both. A causal backward with only non-causal rows
//    takes their rate times the forward's causal-to-non-causal ratio at the same shape. Backward
//    FLOPs count as FlashAttention counts them, 2.5× the forward (five matmuls to two), against
//    the 2× of the model's FLOPs.
//  - Memory-bound kernels: bytes read + written at the bandwidth a kernel of that access pattern
//    (copy, cast, cast+transpose, transpose, gather, reduction) and size reached, interpolated in
//    log2 bytes; a pattern without rows of its own takes the copy rows; without a memory table,
//    the datasheet bandwidth.
//  - Burst-clock rows are scaled by the device's sustained-clock factor (the power limit), when
//    their shape is compute-bound (a memory-bound row waits on HBM, not on the SM clock); the SM
//    share scales compute, not bandwidth.
//  - A class without rows runs at the device's achievable rate (a GEMM microbenchmark) under its
//    memory roofline, with the same clock factor.
// A kernel's time in its stream is its execution plus the gap between dependent kernels; a run of
// kernels (run_seconds) is issued by the host one per launch overhead, ahead of the GPU from the
// run's start:  gpu_i = max(gpu_{i−1}, i · launch) + exec_i + gap.
// Not modelled: the L2 cache (a kernel reading what the previous one wrote still pays HBM),
// bandwidth lost with fewer SMs, kernel fusion beyond what the workload lists, clocks varying
// within a step.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/hw/kernel.hpp"
#include "sim/spec/device.hpp"

namespace stepsim::hw {

// How a kernel's time was found: the rate, and the table row or rule it came from.
struct KernelEstimate {
  double seconds = 0.0;  // execution + gap
  double rate = 0.0;     // FLOP/s for compute kernels, bytes/s for memory-bound ones
  std::string rule;
  // The table its rate came from (its name), or "device" (the achievable rate, the datasheet
  // bandwidth) where no table covers it.
  std::string source;
  // The software whose kernel the table measured (its `library`), or "generic" (a kernel at the
  // device's achievable rate) where no table covers it.
  std::string library;
};

class KernelModel {
 public:
  virtual ~KernelModel() = default;
  // Seconds of `k` in its stream (execution plus the gap after it) with `sm_share` of the SMs.
  virtual double seconds(const Kernel& k, double sm_share) const = 0;
  virtual KernelEstimate explain(const Kernel& k, double sm_share) const = 0;
  // Seconds for `k`'s arithmetic alone at the rate the model runs it with `sm_share` of the SMs,
  // as if its bytes cost nothing: no memory bound, no gap, no launch (the roofline's compute
  // term; memory-bound kernels have none).
  virtual double math_seconds(const Kernel& k, double sm_share) const = 0;
  // Of seconds(k, sm_share), the part that scales as 1 / SM share: a compute-bound kernel's
  // execution (its rate is peak · share in every rule above); 0 for one that waits on HBM.
  virtual double sm_seconds(const Kernel& k, double sm_share) const = 0;
  // Whether `k` launches a persistent grid (spec::TableSource::persistent): its library's.
  virtual bool persistent(const Kernel& k) const = 0;
  virtual double launch_seconds() const = 0;
  // The bandwidth a large memory-bound kernel reaches (bytes/s): the roofline's HBM rate.
  virtual double hbm_bandwidth() const = 0;
  // A run of kernels on one stream, issued by the host one per launch: its seconds, and from its
  // kernels' own seconds t_k, Σ t_k² (kernel jitter, variability.hpp), the seconds of those on
  // routed token copies (Kernel::routed_copies) and Σ sm_seconds, the part that SMs taken by
  // communication kernels stretch (exec/step_executor.hpp), of kernels with a grid of a CTA per
  // tile (sm_scaled) and with a persistent grid (sm_persistent), and Σ t_k² over the latter.
  struct RunTimes {
    double seconds = 0.0, square_sum = 0.0, routed = 0.0, sm_scaled = 0.0, sm_persistent = 0.0,
           persistent_square_sum = 0.0;
  };
  RunTimes run_times(const std::vector<Kernel>& ks, double sm_share) const;
  double run_seconds(const std::vector<Kernel>& ks, double sm_share) const {
    return run_times(ks, sm_share).seconds;
  }
};

class TableKernelModel final : public KernelModel {
 public:
  explicit TableKernelModel(const spec::DeviceSpec& device);
  TableKernelModel(spec::DeviceSpec&&) = delete;  // it keeps a reference
  double seconds(const Kernel& k, double sm_share) const override;
  KernelEstimate explain(const Kernel& k, double sm_share) const override;
  double math_seconds(const Kernel& k, double sm_share) const override;
  double sm_seconds(const Kernel& k, double sm_share) const override;
  bool persistent(const Kernel& k) const override;
  double launch_seconds() const override { return rates_->device().launch_overhead_s; }
  // The memory table at 1 GiB, or the datasheet figure without one.
  double hbm_bandwidth() const override;

 private:
  const KernelTimer& timer(const Kernel& k) const;
  std::unique_ptr<DeviceRates> rates_;
  std::vector<std::unique_ptr<KernelTimer>> timers_;  // per class of kKernelClasses
};

}  // namespace stepsim::hw
