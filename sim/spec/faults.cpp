#include "sim/spec/faults.hpp"

#include <charconv>
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

std::vector<std::pair<std::string, int>> fault_indices(const FaultSpec& f) {
  switch (f.target()) {
    case FaultTarget::nic:
      return {{"node", f.node}, {"nic", f.nic}};
    case FaultTarget::link:
      return {{"plane", f.plane}, {"leaf", f.leaf}, {"spine", f.spine}};
    case FaultTarget::fabric_switch:
      if (f.leaf >= 0) return {{"plane", f.plane}, {"leaf", f.leaf}};
      return {{"plane", f.plane}, {"spine", f.spine}};
    case FaultTarget::node:
      return {{"node", f.node}};
    case FaultTarget::nvlink:
    case FaultTarget::gpu:
      return {{"gpu", f.gpu}};
  }
  STEPSIM_UNREACHABLE("unknown fault target");
}

std::string fault_yaml(const FaultSpec& f) {
  std::string out = "{kind: " + std::string(kFaultKinds.word(f.kind));
  for (const auto& [key, value] : fault_indices(f))
    out += ", " + key + ": " + std::to_string(value);
  if (f.effect() != FaultEffect::down) {
    char text[32];
    const auto r = std::to_chars(text, text + sizeof text, f.factor);
    out += std::string(f.effect() == FaultEffect::slowdown ? ", slowdown: " : ", factor: ") +
           std::string(text, r.ptr);
  }
  return out + "}";
}

}  // namespace stepsim::spec
