#include "sim/cli/huge_pages.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <string_view>

namespace stepsim::cli {

namespace {
constexpr std::string_view kTunable = "glibc.malloc.hugetlb";
}

std::optional<std::string> tunables_with_huge_pages(const char* current) {
  const std::string_view now = current ? current : "";
  if (now.find(kTunable) != std::string_view::npos) return std::nullopt;
  std::string out(now);
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

void give_back_freed_memory() {
#if defined(__GLIBC__)
  // A threshold the user set as a tunable wins.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables &&
      std::string_view(tunables).find("glibc.malloc.mmap_threshold") != std::string_view::npos)
    return;
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

}  // namespace stepsim::cli
