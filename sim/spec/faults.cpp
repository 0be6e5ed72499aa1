#include "sim/spec/faults.hpp"

#include <cstdio>

#include "sim/engine/check.hpp"

namespace stepsim::spec {

std::string_view target_phrase(FaultTarget t) {
  static constexpr std::string_view kPhrases[] = {"a NIC",  "a leaf-spine link", "a switch",
                                                  "a node", "a GPU's NVLink",    "a GPU"};
  return kPhrases[static_cast<int>(t)];
}

std::string fault_kinds_help() {
  std::string out;
  for (std::size_t i = 0; i < std::size(kFaultKindDefs); ++i) {
    const auto k = static_cast<FaultKind>(i);
    const bool first = i == 0 || target_of(static_cast<FaultKind>(i - 1)) != target_of(k);
    const bool last = i + 1 == std::size(kFaultKindDefs) ||
                      target_of(static_cast<FaultKind>(i + 1)) != target_of(k);
    out += (i == 0 ? "" : first ? "; " : ", ") + std::string(kFaultKinds.word(k));
    if (last) out += " (" + std::string(target_phrase(target_of(k))) + ")";
  }
  return out;
}

std::string fault_place(const FaultSpec& f) {
  auto n = [](int i) { return std::to_string(i); };
  switch (f.target()) {
    case FaultTarget::nic:
      return "NIC " + n(f.nic) + " of node " + n(f.node);
    case FaultTarget::link:
      return "plane " + n(f.plane) + " leaf " + n(f.leaf) + " - spine " + n(f.spine) + " link";
    case FaultTarget::fabric_switch:
      return "plane " + n(f.plane) + (f.leaf >= 0 ? " leaf " + n(f.leaf) : " spine " + n(f.spine));
    case FaultTarget::node:
      return "node " + n(f.node);
    case FaultTarget::nvlink:
      return "GPU " + n(f.gpu) + "'s NVLink";
    case FaultTarget::gpu:
      return "GPU " + n(f.gpu);
  }
  STEPSIM_UNREACHABLE("unknown fault target");
}

std::string fault_text(const FaultSpec& f) {
  char factor[32];
  std::snprintf(factor, sizeof factor, "%.2fx", f.factor);
  switch (f.effect()) {
    case FaultEffect::degrade:
      return fault_place(f) + " at " + factor + " bandwidth";
    case FaultEffect::slowdown:
      return fault_place(f) + " computes " + factor + " slower";
    case FaultEffect::down:
      return fault_place(f) + " down";
  }
  STEPSIM_UNREACHABLE("unknown fault effect");
}

}  // namespace stepsim::spec
