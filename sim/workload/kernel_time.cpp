#include "sim/workload/kernel_time.hpp"

namespace stepsim::workload {

std::optional<hw::Kernel> kernel_of(const OpCost& op, Pass pass, bool recomputed,
                                    const KernelContext& ctx) {
  const bool weights = op.w_flops > 0.0;
  if (pass == Pass::weight && !weights) return std::nullopt;
  const double tokens =
      ctx.tokens * (tp_replicated(op, ctx.tp, ctx.sequence_parallel) ? ctx.tp : 1);
  const double again = recomputed && pass != Pass::forward && pass != Pass::weight ? 1.0 : 0.0;
  double flops = 0.0, io = 0.0;
  switch (pass) {
    case Pass::forward:
      flops = op.fwd_flops;
      io = 1.0;
      break;
    case Pass::backward:
      flops = op.b_flops + again * op.fwd_flops;
      io = 2.0 + again;
      break;
    case Pass::backward_weight:
      flops = op.b_flops + op.w_flops + again * op.fwd_flops;
      io = (weights ? 3.0 : 2.0) + again;
      break;
    case Pass::weight:
      flops = op.w_flops;
      io = 1.0;
      break;
  }
  hw::Kernel kernel;
  kernel.flops = flops * tokens;
  kernel.hbm_bytes = io * tokens * op.io_bytes +
                     op_local_params(op, ctx.tp, ctx.ep) * hw::bytes_per_element(ctx.params);
  if (kernel.flops <= 0.0 && kernel.hbm_bytes <= 0.0) return std::nullopt;
  // OpClass in declaration order: gemm, attention_core, elementwise, embedding.
  static constexpr hw::KernelClass kClassOf[] = {hw::KernelClass::gemm, hw::KernelClass::attention,
                                                 hw::KernelClass::elementwise,
                                                 hw::KernelClass::embedding};
  kernel.cls = kClassOf[static_cast<int>(op.cls)];
  kernel.precision = op.precision;
  // Tensor parallelism splits the larger of N and K (column-parallel layers widen, row-parallel
  // ones narrow).
  kernel.n = op.n >= op.k ? op.n / ctx.tp : op.n;
  kernel.k = op.n >= op.k ? op.k : op.k / ctx.tp;
  return kernel;
}

KernelTime kernel_time(const OpCost& op, Pass pass, bool recomputed, const KernelContext& ctx) {
  const auto kernel = kernel_of(op, pass, recomputed, ctx);
  if (!kernel) return {};
  return {ctx.model->seconds(*kernel, ctx.sm_share), kernel->flops, kernel->hbm_bytes};
}

}  // namespace stepsim::workload
