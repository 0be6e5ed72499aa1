// Number formatting shared by the search's messages and reports.
#pragma once

#include <cstdio>
#include <string>

namespace stepsim::plan {

// `v` with `digits` decimals.
inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

inline std::string gib(double bytes) {
  return fixed(bytes / kGiB, 1) + " GiB";
}

}  // namespace stepsim::plan
