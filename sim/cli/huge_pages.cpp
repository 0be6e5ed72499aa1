#include "sim/cli/huge_pages.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <limits>
#include <string_view>

namespace stepsim::cli {

namespace {
constexpr std::string_view kTunable = "glibc.malloc.hugetlb";
}

bool names_tunable(const char* tunables, std::string_view name) {
  return tunables && std::string_view(tunables).find(name) != std::string_view::npos;
}

std::optional<std::string> tunables_with_huge_pages(const char* current) {
  if (names_tunable(current, kTunable)) return std::nullopt;
  std::string out(current ? current : "");
  if (!out.empty()) out += ':';
  out += kTunable;
  out += "=1";
  return out;
}

#if defined(__SANITIZE_ADDRESS__)
#define STEPSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STEPSIM_ASAN 1
#endif
#endif

bool allocator_is_glibc() {
#if defined(__GLIBC__) && !defined(STEPSIM_ASAN)
  return true;
#else
  return false;
#endif
}

void tune_freed_memory() {
#if defined(__GLIBC__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!names_tunable(tunables, "glibc.malloc.mmap_threshold"))
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  if (!names_tunable(tunables, "glibc.malloc.trim_threshold"))
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

}  // namespace stepsim::cli
