#include "sim/search/fault_draw.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "sim/engine/user_error.hpp"
#include "tests/workload/spec_fixture.hpp"

namespace stepsim {

using spec::FaultKind;

TEST_CASE("A fault draw parses its kind, count and value range") {
  const search::FaultDraw a = search::parse_fault_draw("nic_down");
  CHECK(a.kind == FaultKind::nic_down);
  CHECK(a.count == 1);
  CHECK(search::value_text(a).empty());
  const search::FaultDraw b = search::parse_fault_draw("straggler:3@1.2-1.5");
  CHECK(b.kind == FaultKind::straggler);
  CHECK(b.count == 3);
  CHECK(b.low == 1.2);
  CHECK(b.high == 1.5);
  CHECK(search::value_text(b) == "slowdown 1.2-1.5");
  const search::FaultDraw c = search::parse_fault_draw("link_degrade:2");
  CHECK(c.low == 0.5);
  CHECK(c.high == 0.5);
  CHECK(search::value_text(c) == "factor 0.5");
  CHECK(search::value_text(search::parse_fault_draw("straggler")) == "slowdown 1.1-2");
}

TEST_CASE("A bad fault draw is a user error naming --fault") {
  for (const char* bad :
       {"nic_dwn", "nic_down:0", "nic_down:1.5", "nic_down:x", "nic_down@0.5", "nic_degrade@2",
        "nic_degrade@0.5-0.25", "straggler@0.5", "straggler:1@", "nic_degrade@0.5-"}) {
    CAPTURE(bad);
    try {
      search::parse_fault_draw(bad);
      FAIL("accepted");
    } catch (const engine::UserError& e) {
      CHECK(e.loc().file == std::string("--fault ") + bad);
      CHECK_FALSE(e.hint().empty());
    }
  }
}

TEST_CASE("Draws pick distinct components of the cluster, the same for the same seed") {
  auto s = test::small_scenario(4, 8);
  s.cluster.fabric.switch_ports = 4;  // 2 nodes per leaf: 2 leaves and 1 spine per plane
  const auto& c = s.cluster;
  const std::vector<search::FaultDraw> draws = {search::parse_fault_draw("nic_down:3"),
                                                search::parse_fault_draw("switch_down:2"),
                                                search::parse_fault_draw("straggler@1.5-1.7")};
  CHECK(search::components(draws[0], c) == 32);
  CHECK(search::components(draws[1], c) == 8 * 3);
  CHECK(search::components(draws[2], c) == 32);
  std::vector<std::vector<spec::FaultSpec>> trials;
  for (int t = 0; t < 50; ++t) trials.push_back(search::draw_trial(draws, c, t, 7));
  std::set<std::string> seen;
  for (const auto& t : trials) {
    REQUIRE(t.size() == 6);
    std::set<std::string> places;
    for (const auto& f : t) places.insert(spec::fault_place(f));
    CHECK(places.size() == 6);  // distinct within a kind; kinds name different things here
    for (int i = 0; i < 3; ++i) {
      CHECK(t[i].kind == FaultKind::nic_down);
      CHECK(t[i].node >= 0);
      CHECK(t[i].node < 4);
    }
    for (int i = 3; i < 5; ++i) CHECK((t[i].leaf >= 0) != (t[i].spine >= 0));
    CHECK(t[5].factor >= 1.5);
    CHECK(t[5].factor <= 1.7);
    seen.insert(spec::fault_place(t[0]));
  }
  CHECK(seen.size() > 10);  // the draws move
  CHECK(search::draw_trial(draws, c, 49, 7)[5].factor == trials[49][5].factor);
  bool differs = false;
  for (int t = 0; t < 50; ++t)
    differs = differs || spec::fault_place(search::draw_trial(draws, c, t, 8)[0]) !=
                             spec::fault_place(trials[static_cast<std::size_t>(t)][0]);
  CHECK(differs);
}

namespace {

// The faults as words with their factors: equal lists give equal texts.
std::string words(const std::vector<spec::FaultSpec>& faults) {
  std::string out;
  for (const spec::FaultSpec& f : faults)
    out += spec::fault_place(f) + " x" + std::to_string(f.factor) + "; ";
  return out;
}

}  // namespace

TEST_CASE("Each trial is drawn alone: its faults do not depend on the trials drawn before it") {
  // A campaign draws a trial when it simulates or prints it, in whatever order the workers take
  // them: trial t must not need trials 0..t-1 drawn first, nor keep them.
  auto s = test::small_scenario(4, 8);
  const auto& c = s.cluster;
  const std::vector<search::FaultDraw> draws = {search::parse_fault_draw("straggler:31@1.1-2")};
  const std::string late = words(search::draw_trial(draws, c, 99'999, 3));
  for (int t = 0; t < 20; ++t) search::draw_trial(draws, c, t, 3);
  CHECK(words(search::draw_trial(draws, c, 99'999, 3)) == late);
  // Neighbouring trials and seeds draw apart (31 of 32 GPUs: only the one spared and the
  // slowdowns differ).
  std::set<int> spared;
  for (int t = 0; t < 64; ++t) {
    std::set<int> hit;
    for (const spec::FaultSpec& f : search::draw_trial(draws, c, t, 3)) hit.insert(f.gpu);
    REQUIRE(hit.size() == 31);
    for (int g = 0; g < 32; ++g)
      if (!hit.count(g)) spared.insert(g);
  }
  CHECK(spared.size() > 20);  // 64 draws of one GPU in 32 miss a given GPU with probability 13 %
  CHECK(words(search::draw_trial(draws, c, 5, 3)) != words(search::draw_trial(draws, c, 5, 4)));
}

TEST_CASE("A draw of more components than the cluster has is refused") {
  auto s = test::small_scenario(1, 8);
  CHECK_THROWS_AS(search::check_draw(search::parse_fault_draw("nic_down"), s.cluster),
                  engine::UserError);
  CHECK_THROWS_AS(search::check_draw(search::parse_fault_draw("straggler:9"), s.cluster),
                  engine::UserError);
  CHECK_NOTHROW(search::check_draw(search::parse_fault_draw("straggler:8"), s.cluster));
}

}  // namespace stepsim
