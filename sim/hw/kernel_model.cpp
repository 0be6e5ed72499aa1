#include "sim/hw/kernel_model.hpp"

namespace stepsim::hw {

double RooflineKernelModel::efficiency(const Kernel& k) const {
  return k.cls == KernelClass::gemm ? device_.gemm_efficiency_for(k.n, k.k) : 1.0;
}

double RooflineKernelModel::seconds(const Kernel& k, double sm_share) const {
  return device_.kernel_seconds(k.flops, k.precision, efficiency(k), k.hbm_bytes, sm_share);
}

double RooflineKernelModel::math_seconds(const Kernel& k) const {
  return k.flops > 0.0 ? k.flops / (device_.rate(k.precision).achievable_flops * efficiency(k))
                       : 0.0;
}

}  // namespace stepsim::hw
