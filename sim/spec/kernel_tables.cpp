#include "sim/spec/kernel_tables.hpp"

#include <algorithm>

namespace stepsim::spec {

namespace {

template <class Row>
std::vector<std::string> libraries(const KernelTables& t, const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) {
    const std::string& lib = t.sources[static_cast<std::size_t>(r.source)].library;
    if (std::find(out.begin(), out.end(), lib) == out.end()) out.push_back(lib);
  }
  return out;
}

template <class Row>
const std::string* library_for(const KernelTables& t, const std::vector<Row>& rows, Precision p,
                               const std::string& preferred) {
  const std::string* chosen = nullptr;
  for (const Row& r : rows) {
    const std::string& lib = t.sources[static_cast<std::size_t>(r.source)].library;
    if (r.precision == p && (!chosen || lib == preferred)) chosen = &lib;
  }
  return chosen;
}

}  // namespace

std::vector<std::string> gemm_libraries(const KernelTables& t) {
  return libraries(t, t.gemm);
}

std::vector<std::string> attention_libraries(const KernelTables& t) {
  return libraries(t, t.attention);
}

const std::string* gemm_library_for(const KernelTables& t, Precision p) {
  return library_for(t, t.gemm, p, t.gemm_library);
}

const std::string* attention_library_for(const KernelTables& t, Precision p) {
  return library_for(t, t.attention, p, t.attention_library);
}

bool times_kernels(const KernelTables& t, int source) {
  const std::string& lib = t.sources[static_cast<std::size_t>(source)].library;
  for (const GemmRow& g : t.gemm)
    if (g.source == source && *gemm_library_for(t, g.precision) != lib) return false;
  for (const AttentionRow& a : t.attention)
    if (a.source == source && *attention_library_for(t, a.precision) != lib) return false;
  return true;
}

}  // namespace stepsim::spec
