// A kernel, as the workload describes it to the kernel model (kernel_model.hpp): its op and role,
// class, precision, FLOPs, HBM bytes and shape.
//
// Kernel classes: the kinds of kernel the workload emits, each timed by a rule of its own from a
// calibration table of its own, and named in listings by its own words. A class is one file that
// defines its KernelClassDef (and its timer); kKernelClasses lists them. TableKernelModel
// (kernel_model.hpp) builds one timer per class for a device and asks each kernel's own.
//   gemm_kernels.cpp       GEMMs and grouped GEMMs, per precision and pass
//   attention_kernels.cpp  fused attention cores, per precision, pass and causality
//   memory_kernels.cpp     memory-bound kernels, per access pattern
// What every timer shares (DeviceRates): the device, the sustained-clock factor of burst-clock
// rows, the memory-bound rates (a GEMM is also held by its own bytes) and the achievable-rate
// fallback for a compute kernel without rows.
// Adding a class: its file, its declaration and row in kKernelClasses below, and the workload
// code that emits its kernels. A class measured by a table of a new format also needs the rows
// (spec/kernel_tables.hpp) and their reader (config).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/hw/rate_table.hpp"
#include "sim/spec/device.hpp"

namespace stepsim::hw {

// Every class: a declaration and a row here, its definition in its file.
struct KernelClassDef;
extern const KernelClassDef kGemmClass;
extern const KernelClassDef kAttentionClass;
extern const KernelClassDef kMemoryClass;
inline constexpr const KernelClassDef* kKernelClasses[] = {&kGemmClass, &kAttentionClass,
                                                           &kMemoryClass};

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
  const KernelClassDef* cls = &kMemoryClass;
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

// The pass a GEMM serves, by its role: fprop, dgrad or wgrad (an unfused attention core's batched
// GEMMs: fprop forward, dgrad backward).
spec::GemmPass gemm_pass_of(const Kernel& k);
// Its word: a GEMM's pass, otherwise forward or backward by `phase_backward`.
std::string_view pass_of(const Kernel& k, bool phase_backward);

// A calibration table as interpolated: the rates, and the device's row behind each.
struct RowTable {
  RateTable rates;
  std::vector<int> rows;
  bool persistent = false;  // its library's kernels launch a persistent grid
};

// "row NAME SHAPE RATE" at a row of the table, else "interpolated over N rows (nearest ...)".
std::string row_rule(const RowTable& t, const std::vector<double>& shape, const std::string& row);
std::string tflops(double flops_per_s);  // "989 TFLOP/s"

class DeviceRates {
 public:
  explicit DeviceRates(const spec::DeviceSpec& device);
  DeviceRates(spec::DeviceSpec&&) = delete;  // it keeps a reference
  const spec::DeviceSpec& device() const { return device_; }
  // 1 for rows measured at sustained clocks, else the device's sustained-clock factor.
  double clock(int source) const;
  // Bytes/s of memory-bound kernel `k` (its pattern and hbm_bytes).
  double memory_rate(const Kernel& k, std::string* rule) const;
  const spec::TableSource* memory_source(const Kernel& k) const;  // null: the datasheet
  // A compute kernel without rows: the achievable rate at the sustained clock and `sm_share`.
  double fallback_rate(const Kernel& k, double sm_share, std::string* rule) const;
  // The source behind the row nearest `shape` of `t`, of the device's rows `rows`.
  template <class Rows>
  const spec::TableSource* source_near(const RowTable& t, const std::vector<double>& shape,
                                       const Rows& rows) const {
    return &device_.tables.sources[rows[t.rows[t.rates.nearest(shape)]].source];
  }

 private:
  const spec::DeviceSpec& device_;
  std::vector<RowTable> memory_;  // per access pattern: its rows, or else the copy rows
};

// One class's timing, for one device.
class KernelTimer {
 public:
  virtual ~KernelTimer() = default;
  // Execution seconds of `k` with `sm_share` of the SMs (no gap); `rule`, if given, says how.
  virtual double exec(const Kernel& k, double sm_share, std::string* rule) const = 0;
  // The arithmetic alone (KernelModel::math_seconds) and the part that scales as 1 / SM share
  // (KernelModel::sm_seconds); a memory-bound class has neither.
  virtual double math_seconds(const Kernel&, double) const { return 0.0; }
  virtual double sm_seconds(const Kernel&, double) const { return 0.0; }
  virtual bool persistent(const Kernel&) const { return false; }
  virtual const spec::TableSource* source_of(const Kernel& k) const = 0;  // null: no table
  // The rate a listing shows for `k` run in `seconds`: FLOP/s in its tables' convention, or
  // bytes/s for a memory-bound class.
  virtual double shown_rate(const Kernel& k, double seconds) const = 0;
};

struct KernelClassDef {
  std::string_view word;  // as listings and traces print it: "gemm"
  // Its class in the roofline chart: "GEMM fp8", "grouped GEMM fp8", "attention bwd bf16".
  std::string (*chart_name)(const Kernel& k);
  // Its shape in listings: "8x4096x7168x2048", "s4096 d128 causal"; empty: none.
  std::string (*shape)(const Kernel& k);
  bool listed_precision;  // listings show its precision (a memory-bound kernel's is no rate's)
  bool pass_by_role;      // its pass is its role's GEMM pass, not its phase (pass_of)
  std::unique_ptr<KernelTimer> (*timer)(const DeviceRates& rates);
};

// The kernel a GEMM table row measured (its shape, precision and pass), as the model times it.
Kernel gemm_kernel(const spec::GemmRow& r);

}  // namespace stepsim::hw
