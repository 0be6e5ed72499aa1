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

TEST_CASE("A long word in a message (a 100 KB key) is shown by its start, end and length") {
  const std::string key = "k" + std::string(100000, 'x') + "end";
  const UserError e({"--vary " + key + "=1", 0, 0}, "unknown key '" + key + "' in 'training'",
                    "known keys here: seq_len, global_batch");
  CHECK(e.render().size() < 1000);
  CHECK(e.message().rfind("unknown key 'kxxx", 0) == 0);
  CHECK(e.message().find("...(100006 bytes)...") != std::string::npos);
  CHECK(e.message().find("xxend' in 'training'") != std::string::npos);
  CHECK(e.hint() == "known keys here: seq_len, global_batch");
  // A cut never splits a UTF-8 character: 300 two-byte characters stay well formed.
  std::string accents;
  for (int i = 0; i < 300; ++i) accents += "\xc3\xa9";
  const UserError u({"a.yaml", 1, 1}, accents);
  const std::string m = u.message();
  const auto dots = m.find("...(");
  REQUIRE(dots != std::string::npos);
  CHECK(dots % 2 == 0);
  CHECK((static_cast<unsigned char>(m[m.find(")...") + 4]) & 0xc0) != 0x80);
}

TEST_CASE("A control byte in a text input is refused where it sits, named by its code") {
  using stepsim::engine::refuse_control_bytes;
  CHECK_NOTHROW(refuse_control_bytes("f.yaml", "a: 1\r\n\tb: \"\\0\"\n", "h"));
  try {
    refuse_control_bytes("f.yaml", std::string("a: 1\nbc: d\0e\n", 13), "remove it");
    FAIL("a NUL byte was accepted");
  } catch (const UserError& e) {
    CHECK(e.render() ==
          "f.yaml:2:6: error: control byte 0x00 (NUL) in the file\n  hint: remove it");
  }
  try {
    refuse_control_bytes("m.csv", "x,\x1b[31m,y", "h", 7);  // one line of a file: its number
    FAIL("an escape sequence was accepted");
  } catch (const UserError& e) {
    CHECK(e.loc().line == 7);
    CHECK(e.loc().column == 3);
    CHECK(e.message() == "control byte 0x1b (ESC) in the file");
  }
  CHECK_THROWS_AS(refuse_control_bytes("f", "\x7f", "h"), UserError);         // DEL
  CHECK_NOTHROW(refuse_control_bytes("f", "caf\xc3\xa9 \xe2\x80\x94", "h"));  // UTF-8 text
}
