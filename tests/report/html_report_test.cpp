#include "sim/report/html_report.hpp"

#include <doctest/doctest.h>

#include <set>

#include "tests/html_scan.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

using test::occurrences;

spec::ScenarioSpec pipelined() {
  return test::pipelined_scenario();
}

}  // namespace

TEST_CASE("The report: every section once, in order, self-contained, and the same bytes twice") {
  const auto a = pipelined();
  auto b = pipelined();
  b.name = "with a <slow> NIC & a straggler";
  b.cluster.faults = {{spec::FaultKind::nic_degrade, 1, 3, -1, -1, -1, -1, 0.5},
                      {spec::FaultKind::straggler, -1, -1, -1, -1, -1, 5, 1.3}};
  const auto sa = run::simulate_step(a);
  const auto sb = run::simulate_step(b);
  const std::vector<report::ReportRun> runs = {{"plain", &sa}, {"faulty<b>", &sb}};
  const std::string html = report::html_report(runs);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  std::size_t last = 0;
  for (const char* id : report::kReportSections) {
    const std::string tag = std::string("<section id=\"") + id + "\">";
    CHECK_MESSAGE(occurrences(html, tag) == 1, id);
    const auto at = html.find(tag);
    CHECK_MESSAGE(at > last, id);
    last = at;
  }
  CHECK(occurrences(html, "<section") == std::size(report::kReportSections));
  CHECK(occurrences(html, "<svg") == occurrences(html, "</svg>"));
  // One roofline chart, breakdown, schedule, heat strip and memory chart per run (the breakdown
  // is one chart for all).
  CHECK(occurrences(html, "<svg") == 2 * 4 + 1);
  CHECK(stepsim::test::external_references(html).empty());
  CHECK(html.find("<script") == std::string::npos);
  // Labels and names escaped; faults listed.
  CHECK(html.find("faulty&lt;b&gt;") != std::string::npos);
  CHECK(html.find("with a &lt;slow&gt; NIC &amp; a straggler") != std::string::npos);
  CHECK(html.find("NIC 3 of node 1 at 0.50x bandwidth; GPU 5 computes 1.30x slower") !=
        std::string::npos);
  CHECK(html.find("Faults: none") != std::string::npos);
  CHECK(html == report::html_report(runs));
  // Every number written is finite, and every id unique.
  for (const char* bad : {"nan", "inf\"", "inf,", "inf ", ">inf"})
    CHECK(html.find(bad) == std::string::npos);
  std::set<std::string> ids;
  for (auto at = html.find(" id=\""); at != std::string::npos; at = html.find(" id=\"", at + 1)) {
    const auto from = at + 5, to = html.find('"', from);
    CHECK_MESSAGE(ids.insert(html.substr(from, to - from)).second, html.substr(from, to - from));
  }
  CHECK(ids.size() == std::size(report::kReportSections) + 2);  // and a clip path per roofline
}

TEST_CASE("The report of a step without communication says so") {
  auto spec = test::small_scenario(1, 1);
  spec.training.global_batch = 4;
  const auto s = run::simulate_step(spec);
  const std::string html = report::html_report({{"one GPU", &s}});
  CHECK(html.find("No communication crossed the fabric in this step.") != std::string::npos);
  CHECK(html.find("no communication</td>") != std::string::npos);
  CHECK(html.find(", InfiniBand") == std::string::npos);  // no fabric, no InfiniBand verdict
  CHECK(html.find("nan") == std::string::npos);
}

TEST_CASE("The report says so when a step has no live fabric") {
  auto spec = pipelined();
  spec.fidelity = spec::NetworkFidelity::analytic;
  const auto s = run::simulate_step(spec);
  const std::string html = report::html_report({{"analytic", &s}});
  CHECK(html.find("No live fabric at this scenario's network fidelity (analytic)") !=
        std::string::npos);
  CHECK(occurrences(html, "<svg") == 4);  // no heat strip
}
