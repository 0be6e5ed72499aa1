#include "sim/engine/time.hpp"

#include <doctest/doctest.h>

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
