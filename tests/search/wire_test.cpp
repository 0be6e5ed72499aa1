#include "sim/search/wire.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace wire = stepsim::search::wire;

TEST_CASE("Numbers cross the workers exactly, then the free text whole") {
  const double values[] = {0.0,
                           -0.0,
                           1.0 / 3.0,
                           6.02214076e23,
                           5e-324,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::infinity()};
  std::string s;
  for (double v : values) wire::put(s, v);
  wire::put(s, -42);
  wire::put(s, 9007199254740993LL);
  s += "a reason with spaces";
  wire::Reader in(s);
  for (double v : values) {
    const double back = in.number<double>();
    CHECK(back == v);
    CHECK(std::signbit(back) == std::signbit(v));
  }
  CHECK(in.number<int>() == -42);
  CHECK(in.number<long long>() == 9007199254740993LL);
  CHECK(in.rest() == "a reason with spaces");
}

TEST_CASE("A NaN reads back as a NaN; an empty rest as empty") {
  std::string s;
  wire::put(s, std::numeric_limits<double>::quiet_NaN());
  wire::Reader in(s);
  CHECK(std::isnan(in.number<double>()));
  CHECK(in.rest().empty());
}
