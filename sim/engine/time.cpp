#include "sim/engine/time.hpp"

#include <cmath>
#include <cstdio>

#include "sim/engine/check.hpp"

namespace stepsim::engine {

void throw_time_overflow(const char* op) {
  throw TimeOverflow(
      std::string("simulated time beyond the clock's range of 106 days (int64 picoseconds, in '") +
      op + "')");
}

std::string Time::to_string() const {
  const double v = static_cast<double>(ps_);
  const double a = std::fabs(v);
  char buf[48];
  if (a >= 1e12)
    std::snprintf(buf, sizeof buf, "%.3f s", v * 1e-12);
  else if (a >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3f ms", v * 1e-9);
  else if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3f us", v * 1e-6);
  else if (a >= 1e3)
    std::snprintf(buf, sizeof buf, "%.3f ns", v * 1e-3);
  else
    std::snprintf(buf, sizeof buf, "%lld ps", static_cast<long long>(ps_));
  return buf;
}

}  // namespace stepsim::engine
