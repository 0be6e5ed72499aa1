#include "sim/report/whatif_page.hpp"

#include <doctest/doctest.h>

#include "sim/format/json_writer.hpp"
#include "sim/report/whatif_report.hpp"
#include "tests/html_scan.hpp"
#include "tests/json_dom.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

using test::occurrences;

}  // namespace

TEST_CASE("The what-if page: one waterfall with a bar per active term, self-contained, stable") {
  const run::WhatIf w = run::whatif(test::pipelined_scenario(), {});
  const std::string html = report::whatif_page(w);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  CHECK(occurrences(html, "<svg") == 1);
  CHECK(occurrences(html, "</svg>") == 1);
  std::size_t active = 0;
  for (const report::WaterfallBar& b : report::waterfall_bars(w))
    if (b.active) {
      ++active;
      CHECK_MESSAGE(html.find("<title>" + b.label + ": ") != std::string::npos, b.label);
    }
  // In the chart: the bound, the step and a titled bar per active term.
  CHECK(occurrences(html.substr(html.find("<svg")), "<title>") == active + 2);
  CHECK(stepsim::test::external_references(html).empty());
  CHECK(html.find("<script") == std::string::npos);
  for (const char* bad : {"nan", "inf\"", ">inf"}) CHECK(html.find(bad) == std::string::npos);
  CHECK(html == report::whatif_page(w));
}

TEST_CASE("The what-if JSON parses, and its terms sum to the step") {
  const run::WhatIf w = run::whatif(test::pipelined_scenario(), {});
  format::JsonWriter j;
  report::whatif_json(j, w);
  const auto doc = stepsim::test::parse_json(j.str());
  double sum = doc["bound_s"].get<double>();
  for (const auto& t : doc["terms"]) sum += t["seconds"].get<double>();
  CHECK(sum == doctest::Approx(doc["step_time_s"].get<double>()).epsilon(1e-9));
  CHECK(doc["attribution"] == "shapley");
  CHECK(doc["steps_simulated"].get<int>() == w.attribution.evaluations);
}

TEST_CASE("The what-if text: the bound, each term, the step, and the scheme it used") {
  const run::WhatIf w = run::whatif(test::pipelined_scenario(), {});
  const std::string text = report::whatif_text(w);
  CHECK(text.find("Shapley values over ") != std::string::npos);
  CHECK(text.find("(" + std::to_string(w.attribution.evaluations) + " steps simulated)") !=
        std::string::npos);
  CHECK(text.find("roofline bound") != std::string::npos);
  for (const report::WaterfallBar& b : report::waterfall_bars(w))
    if (b.word != "limit") CHECK_MESSAGE(text.find(b.label) != std::string::npos, b.label);
  CHECK(text.find("faults (not in this scenario)") != std::string::npos);
  CHECK(text.find("=  simulated step") != std::string::npos);
}
