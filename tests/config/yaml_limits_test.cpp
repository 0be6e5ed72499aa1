#include "sim/config/yaml_limits.hpp"

#include <doctest/doctest.h>

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

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
}

namespace {

// What load_within_limits says of `text`: "ok" and the document emitted, or the error rendered.
std::string outcome(const std::string& text) {
  try {
    YAML::Emitter out;
    out << stepsim::config::load_within_limits("f.yaml", text);
    return std::string("ok ") + out.c_str();
  } catch (const UserError& e) {
    return e.render();
  } catch (const YAML::ParserException& e) {
    return "syntax " + std::to_string(e.mark.line) + ":" + std::to_string(e.mark.column) + " " +
           e.msg;
  }
}

}  // namespace

TEST_CASE(
    "A small text parsed once and walked reads and is refused as a large one checked on its "
    "events") {
  // The same text with a comment after it that takes it past 64 KiB: the positions of
  // everything before the comment are the same.
  const std::string pad = "\n#" + std::string(70 << 10, 'x') + "\n";
  std::string deep = "a: ";
  for (int i = 0; i < 2500; ++i) deep += "[";  // past yaml-cpp's own bound of 2,000 levels
  for (int i = 0; i < 2500; ++i) deep += "]";
  std::string laughs = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (char c = 'b'; c <= 'h'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + char(c - 1);
    laughs += "]\n";
  }
  const std::vector<std::string> texts = {
      "a: {b: [1, 2, 3]}\nc: &x [1, 2]\nd: *x\n",
      "name: x\nrows:\n  - {pass: forward, rate: 1TFLOP/s}\n  - ~\n", deep, laughs,
      "a: 1\n---\nb: 2\n",
      "a: 1\n---\nb: [\n",     // a second document, then a syntax error
      "a: [[[[[[[[1\nb: ]\n",  // a syntax error
      // The depth bound first, a syntax error after it.
      "a: " + std::string(66, '[') + "1" + std::string(66, ']') + "\nb: ]\n", "a: 1\n...\n", "",
      "# nothing\n"};
  for (const std::string& text : texts) {
    CAPTURE(text.substr(0, 80));
    const std::string small = outcome(text);
    CHECK(small == outcome(text + pad));
  }
  CHECK(outcome(deep).find("f.yaml:1:67: error: the document nests deeper than 64 levels") == 0);
  // At the alias that crosses the bound (line 6), not at the node it repeats (line 5).
  CHECK(outcome(laughs).find("f.yaml:6:36: error: the document expands") == 0);
  CHECK(outcome("a: 1\n---\nb: 2\n").find("f.yaml:2:1: error: more than one YAML document") == 0);
}
