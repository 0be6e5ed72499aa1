// A stress campaign as text and CSV (campaign_report.hpp), on a campaign made by hand.
#include "sim/report/campaign_report.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace stepsim;

namespace {

// A campaign of `trials` trials with one fault each, of `kind` at index i (a node or a GPU), whose
// outcome `outcome(i)` gives; the baseline `baseline_s`.
search::Campaign campaign_of(spec::FaultKind kind, int trials, double baseline_s,
                             const std::function<search::Outcome(int)>& outcome) {
  search::Campaign c;
  c.scenario = "s.yaml";
  c.name = "fixture";
  c.draws = {search::parse_fault_draw(std::string(spec::kFaultKinds.word(kind)))};
  c.seed = 9;
  c.baseline_s = baseline_s;
  c.faults = [kind](std::size_t i) {
    spec::FaultSpec f;
    f.kind = kind;
    (kind == spec::FaultKind::node_down ? f.node : f.gpu) = static_cast<int>(i);
    return std::vector<spec::FaultSpec>{f};
  };
  for (int i = 0; i < trials; ++i) c.outcomes.push_back(outcome(i));
  return c;
}

}  // namespace

TEST_CASE("Trials the job does not survive are listed with their faults, and marked lost") {
  const search::Campaign c = campaign_of(spec::FaultKind::node_down, 5, 2.0, [](int node) {
    search::Outcome o;
    o.lost = "GPU 0 cannot reach GPU " + std::to_string(8 * node);
    return o;
  });
  const search::Summary s = search::summarize(c);
  const std::string text = report::campaign_text(c, s);
  CHECK(text.find("the job does not survive 5") != std::string::npos);
  CHECK(text.find("cannot reach GPU 32") != std::string::npos);
  const std::string csv = report::campaign_csv(c);
  CHECK(csv.find(",lost,") != std::string::npos);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 6);  // the header and a row per trial
}

TEST_CASE("The histogram's bin edges are distinct however narrow the spread") {
  // Five stragglers costing 0.0010 % to 0.0050 %: 20 bins of 0.0002 % each, which two decimals
  // would print as one edge repeated.
  const search::Campaign c = campaign_of(spec::FaultKind::straggler, 5, 10.0, [](int gpu) {
    search::Outcome o;
    o.step_s = 10.0 * (1.0 + 1e-5 * (gpu + 1));
    return o;
  });
  const std::string text = report::campaign_text(c, search::summarize(c));
  std::vector<std::string> edges;
  std::istringstream in(text.substr(text.find("histogram of the change")));
  std::string line;
  std::getline(in, line);
  for (int b = 0; b < search::kHistogramBins && std::getline(in, line); ++b) {
    std::istringstream fields(line);
    std::string from, dots, to;
    fields >> from >> dots >> to;
    REQUIRE(dots == "..");
    if (b == 0) edges.push_back(from);
    CHECK(from == edges.back());  // each bin starts where the one before ends
    edges.push_back(to);
  }
  REQUIRE(edges.size() == search::kHistogramBins + 1);
  CHECK(edges.front() == "+0.0010%");
  CHECK(edges.back() == "+0.0050%");
  std::set<std::string> distinct(edges.begin(), edges.end());
  CHECK(distinct.size() == edges.size());
}
