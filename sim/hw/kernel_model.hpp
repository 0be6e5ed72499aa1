// The time of one kernel on one GPU, behind one interface, from the device's calibration tables.
//
// Everything that runs a kernel in the simulation asks a KernelModel: the workload describes the
// kernel (its class, shape, precision, FLOPs and HBM bytes) and the model answers with seconds,
// given the share of the SMs left to it while communication kernels hold theirs.
//
// TableKernelModel times each class from its measured rows (kernel_tables.hpp, rate_table.hpp):
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

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/hw/rate_table.hpp"
#include "sim/spec/device.hpp"

namespace stepsim::hw {

enum class KernelClass : std::uint8_t { gemm, attention, memory };
std::string_view to_string(KernelClass c);

// What a kernel does for its op, for its name: "q_up dgrad", "q_down quantize input".
enum class KernelRole : std::uint8_t {
  plain,            // "{op}"
  fprop,            // "{op} fprop"
  dgrad,            // "{op} dgrad"
  wgrad,            // "{op} wgrad"
  quantize_input,   // "{op} quantize input"
  quantize_grad,    // "{op} quantize output grad"
  transpose_input,  // "{op} transpose input"
  transpose_grad,   // "{op} transpose output grad"
  backward,         // "{op} backward"
  forward_pass,     // "{op} fwd"
  backward_pass,    // "{op} bwd"
  cast_transpose,   // "{op} cast + transpose"
  // An unfused attention core (spec::AttentionKernel): its batched GEMMs and the kernels on the
  // s x s scores between them, forward and backward.
  attn_qk,           // "{op} QK^T"
  attn_pv,           // "{op} PV"
  attn_scale,        // "{op} scale"
  attn_mask,         // "{op} mask"
  attn_softmax,      // "{op} softmax"
  attn_dropout,      // "{op} dropout"
  attn_dp,           // "{op} dP"
  attn_dv,           // "{op} dV"
  attn_dropout_bwd,  // "{op} dropout bwd"
  attn_softmax_bwd,  // "{op} softmax bwd"
  attn_mask_bwd,     // "{op} mask bwd"
  attn_scale_bwd,    // "{op} scale bwd"
  attn_dq,           // "{op} dQ"
  attn_dk            // "{op} dK"
};

struct Kernel {
  // The name without a heap string (a step program holds tens of thousands of kernels): the op's
  // name in place, the role, and whether it reruns a forward in backward.
  std::array<char, 24> op{};
  KernelRole role = KernelRole::plain;
  bool recompute = false;
  // Runs on the routed token copies that the busiest GPU of an expert-parallel group receives
  // (workload/expert_load.hpp): the others finish their share early and wait.
  bool routed_copies = false;
  KernelClass cls = KernelClass::memory;
  spec::Precision precision = spec::Precision::bf16;
  double flops = 0.0;      // model FLOPs (what MFU counts)
  double hbm_bytes = 0.0;  // read + written
  // GEMM: G groups of (M×K)·(K×N); G = 1 a plain GEMM.
  double m = 0.0, n = 0.0, k = 0.0;
  int groups = 1;
  spec::MemoryPattern pattern = spec::MemoryPattern::copy;  // a memory-bound kernel's
  // Attention: pass, masking, per-head dimension (mean of q·k and v), sequence length.
  bool backward = false, causal = false;
  double head_dim = 0.0, seq = 0.0;

  void set_op(std::string_view name);  // at most 23 characters
  std::string name() const;
};

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

// The pass a GEMM serves, by its role: fprop, dgrad or wgrad (an unfused attention core's batched
// GEMMs: fprop forward, dgrad backward).
spec::GemmPass gemm_pass_of(const Kernel& k);
// Its word: a GEMM's pass, otherwise forward or backward by `phase_backward`.
std::string_view pass_of(const Kernel& k, bool phase_backward);

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
  double launch_seconds() const override { return device_.launch_overhead_s; }
  // The memory table at 1 GiB, or the datasheet figure without one.
  double hbm_bandwidth() const override;

 private:
  struct Table {
    RateTable rates;
    std::vector<int> rows;    // the device's row behind each table row
    bool persistent = false;  // its library's GEMMs launch a persistent grid
  };
  double exec(const Kernel& k, double sm_share, std::string* rule) const;
  // `memory`: under the shape's memory roofline too (else its arithmetic alone).
  double gemm_rate(const Kernel& k, double sm_share, bool memory, std::string* rule) const;
  double attention_rate(const Kernel& k, double sm_share, std::string* rule) const;
  double memory_rate(const Kernel& k, std::string* rule) const;
  double fallback_rate(const Kernel& k, double sm_share, std::string* rule) const;
  double gemm_bound(const Kernel& k, double sm_share, bool memory = true) const;
  bool compute_bound(const Kernel& k, double sm_share) const;
  double waves(const Kernel& k, double sm_share) const;
  // The GEMM table of a precision and pass (0 fprop, 1 dgrad, 2 wgrad): the pass's own rows, or
  // the rows of any pass.
  static int gemm_pass(const Kernel& k);
  const Table* gemm_table(spec::Precision p, int pass) const;
  const Table* attention_table(spec::Precision p, bool backward, bool causal) const;
  double clock(int source) const;
  const spec::TableSource* source_of(const Kernel& k) const;  // null: no table covers it

  // Rates already found, by shape and SM share: a step program repeats its shapes in every
  // layer and chain. (Not thread-safe: one model per thread.)
  struct ShapeKey {
    double m, n, k, head_dim, seq, sm_share;
    int groups;
    std::uint8_t cls, precision, backward, causal, memory, pass;
    bool operator==(const ShapeKey&) const = default;
  };
  struct ShapeHash {
    std::size_t operator()(const ShapeKey& s) const;
  };
  double cached_rate(const Kernel& k, double sm_share, bool memory) const;
  mutable std::unordered_map<ShapeKey, double, ShapeHash> rates_;

  const spec::DeviceSpec& device_;
  std::vector<Table> gemm_;       // per precision × pass
  std::vector<Table> attention_;  // per precision × backward × causal
  std::vector<Table> memory_;     // per access pattern: its rows, or else the copy rows
  const Table& memory_table(spec::MemoryPattern p) const {
    return memory_[static_cast<std::size_t>(p)];
  }
};

}  // namespace stepsim::hw
