#include "sim/format/text_table.hpp"

#include <doctest/doctest.h>

using namespace stepsim::format;

TEST_CASE("fixed: the given decimals; a negative value that rounds to zero is zero") {
  CHECK(fixed(1.25, 1) == "1.2");
  CHECK(fixed(-2.5, 2) == "-2.50");
  CHECK(fixed(-0.0004, 1) == "0.0");
  CHECK(fixed(-0.04, 1) == "0.0");
  CHECK(fixed(-0.06, 1) == "-0.1");
  CHECK(fixed(-0.4, 0) == "0");
  CHECK(fixed(-0.0, 3) == "0.000");
}
