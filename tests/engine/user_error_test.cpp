#include "sim/engine/user_error.hpp"

#include <doctest/doctest.h>

using stepsim::engine::SourceLoc;
using stepsim::engine::UserError;

TEST_CASE("UserError renders file:line:col, message and hint") {
  const UserError e({"a.yaml", 3, 7}, "bad value", "use 1");
  CHECK(e.render() == "a.yaml:3:7: error: bad value\n  hint: use 1");
  CHECK(std::string(e.what()) == "a.yaml:3:7: error: bad value");
}

TEST_CASE("SourceLoc omits unknown parts") {
  CHECK(SourceLoc{"a.yaml", 0, 0}.to_string() == "a.yaml");
  CHECK(SourceLoc{"a.yaml", 4, 0}.to_string() == "a.yaml:4");
  CHECK(SourceLoc{"", 0, 0}.to_string() == "<input>");
}
