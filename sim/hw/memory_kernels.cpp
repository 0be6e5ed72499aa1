// Memory-bound kernels (norms, activations, casts, quantisation, the optimizer): bytes read and
// written at the bandwidth of their access pattern (DeviceRates::memory_rate).
#include "sim/hw/kernel.hpp"

namespace stepsim::hw {

namespace {

class MemoryTimer final : public KernelTimer {
 public:
  explicit MemoryTimer(const DeviceRates& rates) : rates_(rates) {}
  double exec(const Kernel& k, double, std::string* rule) const override {
    return k.hbm_bytes > 0.0 ? k.hbm_bytes / rates_.memory_rate(k, rule) : 0.0;
  }
  const spec::TableSource* source_of(const Kernel& k) const override {
    return rates_.memory_source(k);
  }
  double shown_rate(const Kernel& k, double seconds) const override {
    return k.hbm_bytes / seconds;
  }

 private:
  const DeviceRates& rates_;
};

std::string memory_chart_name(const Kernel&) {
  return "memory-bound";
}

std::string memory_shape(const Kernel&) {
  return "";
}

std::unique_ptr<KernelTimer> memory_timer(const DeviceRates& rates) {
  return std::make_unique<MemoryTimer>(rates);
}

}  // namespace

const KernelClassDef kMemoryClass{"memory", memory_chart_name, memory_shape, false,
                                  false,    memory_timer};

}  // namespace stepsim::hw
