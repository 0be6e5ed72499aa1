// Simulated time: a strong type over int64 picoseconds.
//
// int64 picoseconds cover +/- 106 days, far beyond one training step, with exact integer
// arithmetic: event order never depends on floating-point rounding. Conversions from a physical
// amount (bytes at a bandwidth, flops at a rate, seconds) go through `Time::from_seconds`, which
// rounds up to the next picosecond, so a non-zero cost never becomes zero time.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace stepsim::engine {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(std::int64_t v) { return Time(v); }
  static constexpr Time ns(std::int64_t v) { return Time(v * 1'000); }
  static constexpr Time us(std::int64_t v) { return Time(v * 1'000'000); }
  static constexpr Time ms(std::int64_t v) { return Time(v * 1'000'000'000); }
  static constexpr Time s(std::int64_t v) { return Time(v * 1'000'000'000'000); }
  static constexpr Time max() { return Time(INT64_MAX); }

  // Rounds up to whole picoseconds; negative or NaN input is an internal error.
  static Time from_seconds(double seconds);
  // amount / rate, e.g. bytes / (bytes/s) or flops / (flop/s), rounded up.
  static Time from_ratio(double amount, double rate_per_second);

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }

  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) { ps_ += o.ps_; return *this; }
  constexpr Time& operator-=(Time o) { ps_ -= o.ps_; return *this; }
  constexpr Time operator*(std::int64_t k) const { return Time(ps_ * k); }
  constexpr auto operator<=>(const Time&) const = default;

  // Human-readable with an adapted unit: "12.5 us", "3.21 s".
  std::string to_string() const;

 private:
  constexpr explicit Time(std::int64_t v) : ps_(v) {}
  std::int64_t ps_ = 0;
};

}  // namespace stepsim::engine
