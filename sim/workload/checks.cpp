#include "sim/workload/checks.hpp"

namespace stepsim::workload {

void check_precisions(const spec::ScenarioSpec& spec) {
  const auto& pr = spec.training.precision;
  const auto& dev = spec.cluster.device;
  const std::pair<spec::Precision, const char*> used[] = {
      {pr.gemm, "gemm"}, {pr.attention, "attention"}, {pr.head, "head"}, {pr.router, "router"}};
  for (const auto& [p, key] : used)
    if (!dev.supports(p))
      throw engine::UserError(spec.where.at(std::string("training.precision.") + key),
                              "device '" + dev.name + "' has no " +
                                  std::string(spec::to_string(p)) + " rate for " + key +
                                  " arithmetic",
                              "use a precision the device lists under compute (e.g. bf16)");
}

}  // namespace stepsim::workload
