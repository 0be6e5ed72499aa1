// A stress campaign as text and CSV (campaign_report.hpp), on a campaign made by hand.
#include "sim/report/campaign_report.hpp"

#include <doctest/doctest.h>

using namespace stepsim;

TEST_CASE("Trials the job does not survive are listed with their faults, and marked lost") {
  search::Campaign c;
  c.scenario = "s.yaml";
  c.name = "fixture";
  c.draws = {search::parse_fault_draw("node_down")};
  c.seed = 9;
  c.baseline_s = 2.0;
  for (int node = 0; node < 5; ++node) {
    spec::FaultSpec f;
    f.kind = spec::FaultKind::node_down;
    f.node = node;
    c.faults.push_back({f});
    search::Outcome o;
    o.lost = "GPU 0 cannot reach GPU " + std::to_string(8 * node);
    c.outcomes.push_back(o);
  }
  const search::Summary s = search::summarize(c);
  const std::string text = report::campaign_text(c, s);
  CHECK(text.find("the job does not survive 5") != std::string::npos);
  CHECK(text.find("cannot reach GPU 32") != std::string::npos);
  const std::string csv = report::campaign_csv(c);
  CHECK(csv.find(",lost,") != std::string::npos);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 6);  // the header and a row per trial
}
