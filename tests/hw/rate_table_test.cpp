#include "sim/hw/rate_table.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace stepsim::hw;

TEST_CASE("A rate table reproduces its rows and follows its trend between them") {
  // v = 0.1 · log2-linear in the one coordinate: v(2^x) = 0.1·x, rows at x = 1..4.
  RateTable t(1, {0});
  for (double x : {1.0, 2.0, 3.0, 4.0}) t.add({std::exp2(x)}, std::exp(0.1 * x));
  t.fit();
  for (double x : {1.0, 2.0, 3.0, 4.0})
    CHECK(t.at({std::exp2(x)}) == doctest::Approx(std::exp(0.1 * x)));
  // A power law is its own trend: exact between the rows; beyond them the trend holds its edge.
  CHECK(t.at({std::exp2(2.5)}) == doctest::Approx(std::exp(0.25)));
  CHECK(t.at({std::exp2(0.5)}) == doctest::Approx(std::exp(0.1)).epsilon(0.02));
  // Never above the best measured row.
  CHECK(t.at({std::exp2(9.0)}) == doctest::Approx(std::exp(0.4)));
  CHECK(t.exact({8.0}));
  CHECK_FALSE(t.exact({9.0}));
  CHECK(t.nearest({9.0}) == 2);
}

TEST_CASE("Off the trend, a row pulls its neighbourhood by inverse squared distance") {
  RateTable t(2, {0});
  t.add({2.0, 1.0}, 1.0);
  t.add({4.0, 1.0}, 1.0);
  t.add({8.0, 1.0}, 1.0);
  t.add({4.0, 4.0}, 2.0);  // the one row off the constant trend
  t.fit();
  CHECK(t.at({4.0, 4.0}) == doctest::Approx(2.0));
  const double near = t.at({4.0, 3.0}), far = t.at({4.0, 1.5});
  CHECK(near > far);
  CHECK(far > 0.0);
  CHECK(near <= 2.0);
}

TEST_CASE("One row: a constant") {
  RateTable t(1, {0});
  t.add({1e9}, 3e12);
  t.fit();
  CHECK(t.at({1.0}) == doctest::Approx(3e12));
  CHECK(t.at({1e12}) == doctest::Approx(3e12));
}
