#include "sim/report/schedule_svg.hpp"

#include <doctest/doctest.h>

#include "tests/html_scan.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using spec::Schedule;

namespace {

// Equal stages, free communication: every chunk's ops run back to back.
spec::ScenarioSpec equal_stages(Schedule schedule, int pp, int m) {
  auto spec = test::small_scenario(4, 8);
  spec.name = "equal <stages> & free network";
  spec.model.layers = 16;
  spec.model.vocab = 1;
  spec.parallel.pp = pp;
  spec.parallel.tp = 32 / pp;
  spec.parallel.schedule = schedule;
  spec.training.global_batch = m;
  spec.fidelity = spec::NetworkFidelity::free;
  return spec;
}

using test::occurrences;

}  // namespace

TEST_CASE(
    "1F1B: one forward and one backward box per micro-batch and rank, an optimizer box per rank") {
  const auto spec = equal_stages(workload::schedule_named("1f1b"), 4, 8);
  const auto sim = run::simulate_step(spec);
  const std::string svg = report::schedule_svg(sim);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.size() >= 7);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(occurrences(svg, "<rect class=\"F\" x=") == 4 * 8);
  CHECK(occurrences(svg, "<rect class=\"B\" x=") == 4 * 8);
  CHECK(occurrences(svg, "<rect class=\"FB\" x=") == 0);
  CHECK(occurrences(svg, "<rect class=\"O\" x=") == 4);
  CHECK(occurrences(svg, "<rect class=\"C\" x=") == 0);  // free network: no communication in flight
  CHECK(svg.find("equal &lt;stages&gt; &amp; free network") != std::string::npos);
  CHECK(svg == report::schedule_svg(run::simulate_step(spec)));  // deterministic
}

TEST_CASE(
    "DualPipe: overlapped forward/backward pairs; ZB1P: weight-gradient boxes; a real network: "
    "communication") {
  const auto dual = equal_stages(workload::schedule_named("dualpipe"), 4, 8);
  CHECK(occurrences(report::schedule_svg(run::simulate_step(dual)), "<rect class=\"FB\" x=") > 0);
  const auto zb = equal_stages(workload::schedule_named("zb1p"), 4, 8);
  CHECK(occurrences(report::schedule_svg(run::simulate_step(zb)), "<rect class=\"W\" x=") == 4 * 8);
  auto flow = equal_stages(workload::schedule_named("1f1b"), 4, 8);
  flow.fidelity = spec::NetworkFidelity::flow;
  CHECK(occurrences(report::schedule_svg(run::simulate_step(flow)), "<rect class=\"C\" x=") > 0);
}
