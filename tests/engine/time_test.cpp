#include "sim/engine/time.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "sim/engine/check.hpp"

using stepsim::engine::Time;

TEST_CASE("Time units are exact picoseconds") {
  CHECK(Time::ns(1).picoseconds() == 1'000);
  CHECK(Time::us(3).picoseconds() == 3'000'000);
  CHECK(Time::ms(2) == Time::us(2000));
  CHECK(Time::s(1).seconds() == doctest::Approx(1.0));
  CHECK(Time::us(5) - Time::us(2) == Time::us(3));
  CHECK(Time::ns(7) * 3 == Time::ns(21));
  CHECK(Time::ns(1) < Time::ns(2));
}

TEST_CASE("Conversions round up to the next picosecond") {
  CHECK(Time::from_seconds(0.0) == Time());
  CHECK(Time::from_seconds(1e-12) == Time::ps(1));
  CHECK(Time::from_seconds(1.5e-12) == Time::ps(2));
  CHECK(Time::from_seconds(3.3e-6) == Time::ps(3'300'000));
  // 1 GiB at 50 GB/s = 21.47483648 ms exactly.
  CHECK(Time::from_ratio(1073741824.0, 50e9) == Time::ps(21'474'836'480));
  // A non-zero cost never rounds to zero.
  CHECK(Time::from_ratio(1.0, 1e18) == Time::ps(1));
}

TEST_CASE("Invalid conversions are internal errors") {
  CHECK_THROWS_AS(Time::from_seconds(-1.0), stepsim::engine::InternalError);
  CHECK_THROWS_AS(Time::from_ratio(1.0, 0.0), stepsim::engine::InternalError);
}

TEST_CASE("Time prints with an adapted unit") {
  CHECK(Time::us(12).to_string() == "12.000 us");
  CHECK(Time::ms(3210).to_string() == "3.210 s");
  CHECK(Time::ps(5).to_string() == "5 ps");
}

TEST_CASE("Time arithmetic never wraps: a result beyond int64 picoseconds throws TimeOverflow") {
  using stepsim::engine::TimeOverflow;
  const Time big = Time::max();
  CHECK_THROWS_AS(big + Time::ps(1), TimeOverflow);
  CHECK_THROWS_AS(Time() - big - Time::ps(2), TimeOverflow);
  CHECK_THROWS_AS(Time::s(5'000'000) * 2, TimeOverflow);
  CHECK_THROWS_AS(Time::s(10'000'000), TimeOverflow);  // 116 days
  CHECK_THROWS_AS(Time::ns(INT64_MAX / 100), TimeOverflow);
  Time t = Time::s(9'000'000);
  CHECK_THROWS_AS(t += Time::s(300'000), TimeOverflow);
  CHECK(t == Time::s(9'000'000));  // unchanged by the failed addition
  CHECK_THROWS_AS(Time::from_seconds(1e300), TimeOverflow);
  CHECK_THROWS_AS(Time::from_seconds(HUGE_VAL), TimeOverflow);
  CHECK_THROWS_AS(Time::from_ratio(1e30, 1e-30), TimeOverflow);
  // The largest representable sums still work.
  CHECK((Time::max() - Time::ps(1)) + Time::ps(1) == Time::max());
  CHECK(Time::from_seconds(9.0e6).seconds() == doctest::Approx(9.0e6));
}
