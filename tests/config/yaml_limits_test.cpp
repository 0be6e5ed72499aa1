#include "sim/config/yaml_limits.hpp"

#include <doctest/doctest.h>

#include <string>

#include "sim/engine/user_error.hpp"

using stepsim::config::check_limits;
using stepsim::engine::UserError;

TEST_CASE("A YAML text within the bounds passes; depth, scalar size and expansion are refused") {
  CHECK_NOTHROW(check_limits("ok.yaml", "a: {b: [1, 2, 3]}\nc: &x [1, 2]\nd: *x\n"));
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "[";
  for (int i = 0; i < 70; ++i) deep += "]";
  CHECK_THROWS_WITH_AS(check_limits("deep.yaml", deep), doctest::Contains("nests deeper than 64"),
                       UserError);
  CHECK_THROWS_AS(check_limits("big.yaml", "a: " + std::string((1u << 20) + 1, 'x') + "\n"),
                  UserError);
  std::string laughs = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (char c = 'b'; c <= 'h'; ++c)
    laughs += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" +
              char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) +
              ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
              char(c - 1) + "]\n";
  CHECK_THROWS_AS(check_limits("laughs.yaml", laughs), UserError);
  CHECK_THROWS_WITH_AS(check_limits("two.yaml", "a: 1\n---\nb: 2\n"),
                       doctest::Contains("more than one YAML document"), UserError);
  // yaml-cpp reads a stray flow indicator as one empty document after another without end: the
  // events stop at the second (yaml-cpp's LoadAll would grow until memory runs out).
  CHECK_THROWS_WITH_AS(check_limits("comma.yaml", ","),
                       doctest::Contains("more than one YAML document"), UserError);
}
