#include "sim/engine/time.hpp"

#include <cmath>
#include <cstdio>

#include "sim/engine/check.hpp"

namespace stepsim::engine {

Time Time::from_seconds(double seconds) {
  STEPSIM_CHECK(seconds >= 0.0 && std::isfinite(seconds), "time must be finite and >= 0");
  const double ps = std::ceil(seconds * 1e12 - 1e-6);
  STEPSIM_CHECK(ps < 9.2e18, "time overflows int64 picoseconds");
  return Time(static_cast<std::int64_t>(ps < 0 ? 0 : ps));
}

Time Time::from_ratio(double amount, double rate_per_second) {
  STEPSIM_CHECK(rate_per_second > 0.0, "rate must be positive");
  return from_seconds(amount / rate_per_second);
}

std::string Time::to_string() const {
  const double v = static_cast<double>(ps_);
  const double a = std::fabs(v);
  char buf[48];
  if (a >= 1e12) std::snprintf(buf, sizeof buf, "%.3f s", v * 1e-12);
  else if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.3f ms", v * 1e-9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.3f us", v * 1e-6);
  else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.3f ns", v * 1e-3);
  else std::snprintf(buf, sizeof buf, "%lld ps", static_cast<long long>(ps_));
  return buf;
}

}  // namespace stepsim::engine
