#include "sim/spec/scenario.hpp"

namespace stepsim::spec {

std::string_view to_string(NetworkFidelity f) {
  return kNetworkFidelities.word(f);
}

std::string_view to_string(TrafficKind k) {
  static constexpr std::string_view kNames[] = {"tp", "ep", "dp", "zero", "pp", "cp"};
  return kNames[static_cast<int>(k)];
}

std::string software_words(const ScenarioSpec& s) {
  std::string w =
      s.software.name + ": attention " + attention_words(s.training) +
      (s.software.gemm_library.empty() ? "" : ", GEMMs from " + s.software.gemm_library);
  if (s.parallel.zero == 3) {
    const Zero3Spec& z = s.parallel.zero3;
    w += ", ZeRO-3 as " + std::string(kZero3Impls.word(z.impl)) + " (one gather per " +
         (z.per_tensor ? "parameter tensor" : (z.unit == Zero3Unit::layer ? "layer" : "module")) +
         (z.host_syncs ? ", the host synchronising the device around each" : "") + ")";
  }
  return w;
}

engine::SourceLoc Provenance::at(const std::string& path) const {
  std::string p = path;
  while (true) {
    if (auto it = keys.find(p); it != keys.end()) return it->second;
    const auto dot = p.rfind('.');
    if (dot == std::string::npos) return file;
    p.resize(dot);
  }
}

}  // namespace stepsim::spec
