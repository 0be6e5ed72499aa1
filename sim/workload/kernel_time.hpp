// The time of one op of the cost model as one kernel on one GPU, in one pass of training.
//
// Per pass, with t tokens on the GPU (the micro-batch's tokens / tp; all of them, t·tp, for an
// op that is whole on every tensor-parallel rank: model_cost.hpp's tp_replicated) and the op's
// per-token figures:
//   forward          FLOPs t·fwd           HBM t·io
//   backward (B)     FLOPs t·b (+ t·fwd when recomputed)     HBM 2·t·io (+ t·io recomputed)
//   weight (W)       FLOPs t·w             HBM t·io          only ops with weights (w > 0)
//   B and W fused    the sum of the two
// plus the GPU's share of the op's weights read once per pass. The kernel's time is the device's
// KernelModel's (hw/kernel_model.hpp), given its class, precision, FLOPs, bytes, the GEMM's N and
// K on this GPU (tensor parallelism splits the larger) and the SMs left by communication kernels.
// Ops with neither FLOPs nor bytes in a pass launch nothing.
#pragma once

#include <optional>

#include "sim/hw/kernel_model.hpp"
#include "sim/workload/model_cost.hpp"

namespace stepsim::workload {

enum class Pass { forward, backward, backward_weight, weight };

struct KernelContext {
  const hw::KernelModel* model = nullptr;  // kernel_time only
  double tokens = 0.0;                     // tokens of the micro-batch on this GPU (split by tp)
  int tp = 1, ep = 1;
  bool sequence_parallel = false;
  Precision params = Precision::bf16;
  double sm_share = 1.0;  // fraction of SMs left to compute
};

struct KernelTime {
  double seconds = 0.0;  // 0 when the op launches nothing in this pass
  double flops = 0.0;
  double bytes = 0.0;
};

// The kernel the op launches in the pass (its description, untimed), or nothing.
std::optional<hw::Kernel> kernel_of(const OpCost& op, Pass pass, bool recomputed,
                                    const KernelContext& ctx);
// Its time on ctx.model with ctx.sm_share of the SMs.
KernelTime kernel_time(const OpCost& op, Pass pass, bool recomputed, const KernelContext& ctx);

}  // namespace stepsim::workload
