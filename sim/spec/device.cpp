#include "sim/spec/device.hpp"

#include "sim/engine/check.hpp"

namespace stepsim::spec {

const ComputeRate& DeviceSpec::rate(Precision p) const {
  const auto& r = rates[static_cast<int>(p)];
  STEPSIM_CHECK(r.has_value(), "device " + name + " has no rate for " + std::string(to_string(p)));
  return *r;
}

}  // namespace stepsim::spec
