#include "sim/hw/kernel_model.hpp"

namespace stepsim::hw {

double RooflineKernelModel::seconds(const Kernel& k, double sm_share) const {
  const double efficiency =
      k.cls == KernelClass::gemm ? device_.gemm_efficiency_for(k.n, k.k) : 1.0;
  return device_.kernel_seconds(k.flops, k.precision, efficiency, k.hbm_bytes, sm_share);
}

}  // namespace stepsim::hw
