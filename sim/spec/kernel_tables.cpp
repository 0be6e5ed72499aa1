#include "sim/spec/kernel_tables.hpp"

#include <algorithm>

namespace stepsim::spec {

std::vector<std::string> gemm_libraries(const KernelTables& t) {
  std::vector<std::string> out;
  for (const GemmRow& g : t.gemm) {
    const std::string& lib = t.sources[static_cast<std::size_t>(g.source)].library;
    if (std::find(out.begin(), out.end(), lib) == out.end()) out.push_back(lib);
  }
  return out;
}

const std::string* gemm_library_for(const KernelTables& t, Precision p) {
  const std::string* chosen = nullptr;
  for (const GemmRow& g : t.gemm) {
    const std::string& lib = t.sources[static_cast<std::size_t>(g.source)].library;
    if (g.precision == p && (!chosen || lib == t.gemm_library)) chosen = &lib;
  }
  return chosen;
}

bool times_kernels(const KernelTables& t, int source) {
  const std::string& lib = t.sources[static_cast<std::size_t>(source)].library;
  for (const GemmRow& g : t.gemm)
    if (g.source == source && *gemm_library_for(t, g.precision) != lib) return false;
  return true;
}

}  // namespace stepsim::spec
