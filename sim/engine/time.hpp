// Simulated time: a strong type over int64 picoseconds.
//
// int64 picoseconds cover +/- 106 days, far beyond one training step, with exact integer
// arithmetic: event order never depends on floating-point rounding. Conversions from a physical
// amount (bytes at a bandwidth, flops at a rate, seconds) go through `Time::from_seconds`, which
// rounds up to the next picosecond, so a non-zero cost never becomes zero time.
//
// Every arithmetic operation is checked: a result outside int64 picoseconds throws TimeOverflow
// (a simulated step longer than 106 days comes only from absurd inputs: a bandwidth of bytes per
// second, a latency of days), never a silent wrap to a negative time.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/engine/check.hpp"

namespace stepsim::engine {

// A time beyond the range of the simulated clock. Inputs cause it (rates, latencies and sizes
// whose combination needs more than 106 days), so it is reported as a user error, not a bug.
class TimeOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

[[noreturn]] void throw_time_overflow(const char* op);

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(std::int64_t v) { return Time(v); }
  static constexpr Time ns(std::int64_t v) { return Time(mul(v, 1'000)); }
  static constexpr Time us(std::int64_t v) { return Time(mul(v, 1'000'000)); }
  static constexpr Time ms(std::int64_t v) { return Time(mul(v, 1'000'000'000)); }
  static constexpr Time s(std::int64_t v) { return Time(mul(v, 1'000'000'000'000)); }
  static constexpr Time max() { return Time(INT64_MAX); }

  // Rounds up to whole picoseconds; negative or NaN input is an internal error, a result beyond
  // the clock's range (including +infinity) throws TimeOverflow.
  static Time from_seconds(double seconds);
  // amount / rate, e.g. bytes / (bytes/s) or flops / (flop/s), rounded up.
  static Time from_ratio(double amount, double rate_per_second);

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }

  constexpr Time operator+(Time o) const { return Time(add(ps_, o.ps_)); }
  constexpr Time operator-(Time o) const { return Time(sub(ps_, o.ps_)); }
  constexpr Time& operator+=(Time o) {
    ps_ = add(ps_, o.ps_);
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps_ = sub(ps_, o.ps_);
    return *this;
  }
  constexpr Time operator*(std::int64_t k) const { return Time(mul(ps_, k)); }
  constexpr auto operator<=>(const Time&) const = default;

  // Human-readable with an adapted unit: "12.5 us", "3.21 s".
  std::string to_string() const;

 private:
  constexpr explicit Time(std::int64_t v) : ps_(v) {}
  static constexpr std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) throw_time_overflow("+");
    return r;
  }
  static constexpr std::int64_t sub(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) throw_time_overflow("-");
    return r;
  }
  static constexpr std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) throw_time_overflow("*");
    return r;
  }
  std::int64_t ps_ = 0;
};

// Inline: a re-solve of a quarter of a million flows converts each one's finish time.
inline Time Time::from_seconds(double seconds) {
  STEPSIM_CHECK(seconds >= 0.0, "time must be >= 0 and not NaN");
  const double ps = std::ceil(seconds * 1e12 - 1e-6);
  if (!(ps < 9.2e18)) throw_time_overflow("from seconds");
  return Time(static_cast<std::int64_t>(ps < 0 ? 0 : ps));
}

inline Time Time::from_ratio(double amount, double rate_per_second) {
  STEPSIM_CHECK(rate_per_second > 0.0, "rate must be positive");
  return from_seconds(amount / rate_per_second);
}

}  // namespace stepsim::engine
