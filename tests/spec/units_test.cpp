#include "sim/spec/units.hpp"

#include <doctest/doctest.h>

using namespace stepsim::spec;

namespace {
double v(const char* s, Dimension d) {
  const Parsed p = parse_quantity(s, d);
  REQUIRE_MESSAGE(p.value.has_value(), p.error);
  return *p.value;
}
std::string err(const char* s, Dimension d) {
  return parse_quantity(s, d).error;
}
}  // namespace

TEST_CASE("Sizes: SI and binary prefixes, bytes and bits") {
  CHECK(v("80GB", Dimension::bytes) == 80e9);
  CHECK(v("80GiB", Dimension::bytes) == 80.0 * 1073741824.0);
  CHECK(v("1.5TB", Dimension::bytes) == 1.5e12);
  CHECK(v("512B", Dimension::bytes) == 512.0);
  CHECK(v("8kb", Dimension::bytes) == 1000.0);
  CHECK(v("84.94GB", Dimension::bytes) == doctest::Approx(84.94e9));
  CHECK(v("2KiB", Dimension::bytes) == 2048.0);
}

TEST_CASE("Bandwidths: bytes or bits per second") {
  CHECK(v("50GB/s", Dimension::bandwidth) == 50e9);
  CHECK(v("400Gb/s", Dimension::bandwidth) == 50e9);
  CHECK(v("400Gbps", Dimension::bandwidth) == 50e9);
  CHECK(v("3.35TB/s", Dimension::bandwidth) == doctest::Approx(3.35e12));
  CHECK(v("1 GiB/s", Dimension::bandwidth) == 1073741824.0);
}

TEST_CASE("Times") {
  CHECK(v("3.3us", Dimension::time) == doctest::Approx(3.3e-6));
  CHECK(v("3.3\u00b5s", Dimension::time) == doctest::Approx(3.3e-6));
  CHECK(v("5ns", Dimension::time) == doctest::Approx(5e-9));
  CHECK(v("2ms", Dimension::time) == doctest::Approx(2e-3));
  CHECK(v("1s", Dimension::time) == 1.0);
}

TEST_CASE("FLOP rates") {
  CHECK(v("989TFLOP/s", Dimension::flop_rate) == 989e12);
  CHECK(v("1.46PFLOP/s", Dimension::flop_rate) == doctest::Approx(1.46e15));
  CHECK(v("312TFLOPS", Dimension::flop_rate) == 312e12);
}

TEST_CASE("Mistakes are explained") {
  CHECK(err("160", Dimension::bandwidth).find("has no unit") != std::string::npos);
  CHECK(err("160GB", Dimension::bandwidth).find("unknown unit 'GB'") != std::string::npos);
  CHECK(err("fast", Dimension::bandwidth).find("is not a bandwidth") != std::string::npos);
  CHECK(err("3.3", Dimension::time).find("has no unit") != std::string::npos);
  CHECK(err("3.3m", Dimension::time).find("unknown unit") != std::string::npos);
  CHECK(err("10XB", Dimension::bytes).find("unknown unit") != std::string::npos);
  CHECK(err("1e999GB", Dimension::bytes) != "");
}
