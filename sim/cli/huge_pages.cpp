#include "sim/cli/huge_pages.hpp"

#include <unistd.h>

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

void use_huge_pages(char** argv) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's allocator replaces glibc's: the tunable would change nothing.
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return;
#endif
#endif
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> before =
      current ? std::optional<std::string>(current) : std::nullopt;
  const auto tunables = tunables_with_huge_pages(current);
  if (!tunables || setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  // By the executable's own path, so that process listings still name it stepsim.
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n > 0) {
    path[n] = '\0';
    execv(path, argv);
  }
  // Not executable here: run on without huge pages, the environment as it was.
  if (before)
    setenv("GLIBC_TUNABLES", before->c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
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
