#include "sim/format/csv_table.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using stepsim::format::csv_field;
using stepsim::format::CsvTable;

TEST_CASE("CSV: a header, rows of one field per column, shortest numbers, empty fields") {
  CsvTable t({"name", "step_s", "gpus", "fits", "why"});
  t.row().text("a,b").number(0.1).integer(2048).boolean(true).empty();
  t.row().text("plain").number(1.0 / 0.0).integer(-1).boolean(false).text("say \"hi\"");
  CHECK(t.str() ==
        "name,step_s,gpus,fits,why\n"
        "\"a,b\",0.1,2048,true,\n"
        "plain,,-1,false,\"say \"\"hi\"\"\"\n");
}

TEST_CASE("CSV fields are quoted when they hold a comma, a quote or a line break") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("A row with fewer or more fields than the header is a programming error") {
  CsvTable short_row({"a", "b"});
  short_row.row().text("1");
  CHECK_THROWS_AS(short_row.str(), std::logic_error);
  CsvTable long_row({"a"});
  long_row.row().text("1");
  CHECK_THROWS_AS(long_row.text("2"), std::logic_error);
}
