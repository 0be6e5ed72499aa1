#include "sim/format/json_writer.hpp"

#include <doctest/doctest.h>

#include "sim/format/text_table.hpp"

using namespace stepsim::format;

TEST_CASE("JSON writer: nesting, escaping, shortest round-trip numbers") {
  JsonWriter w;
  w.begin_object();
  w.field("a", 1);
  w.field("b", 0.1);
  w.field("s", "x\"y\n");
  w.key("list").begin_array().value(1.5).value(true).end_array();
  w.key("empty").begin_object().end_object();
  w.end_object();
  CHECK(w.str() ==
        "{\n  \"a\": 1,\n  \"b\": 0.1,\n  \"s\": \"x\\\"y\\n\",\n  \"list\": [\n    1.5,\n    "
        "true\n  ],\n"
        "  \"empty\": {}\n}\n");
}

TEST_CASE("Non-finite numbers become null") {
  JsonWriter w;
  w.begin_array().value(1.0 / 0.0).end_array();
  CHECK(w.str() == "[\n  null\n]");
}

TEST_CASE("Text helpers") {
  CHECK(si(7.81e15, "FLOP") == "7.81 PFLOP");
  CHECK(seconds(0.0125) == "12.50 ms");
  CHECK(seconds(6.88) == "6.88 s");
  TextTable t({"name", "value"});
  t.row({"a", "1"});
  t.row({"long name", "100"});
  CHECK(t.render("") == "name       value\na              1\nlong name    100\n");
}

TEST_CASE("Compact mode writes one line") {
  JsonWriter w(false);
  w.begin_object()
      .field("a", 1)
      .key("b")
      .begin_array()
      .value(2)
      .value("x")
      .end_array()
      .end_object();
  CHECK(w.str() == "{\"a\":1,\"b\":[2,\"x\"]}");
}
