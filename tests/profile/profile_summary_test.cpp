#include "sim/profile/profile_summary.hpp"

#include <doctest/doctest.h>

#include <map>

#include "tests/test_support.hpp"

using namespace stepsim;

TEST_CASE("The hand-written trace: each class's time and count as counted by hand") {
  const profile::RankSummary s =
      profile::summarize(test::source_path("tests/profile/traces/hand.pt.trace.json"));
  CHECK(s.file.rank == 3);
  CHECK(s.gpu_events == 7);  // the CPU events, flows and metadata are not GPU work
  std::map<std::string, std::pair<double, long long>> got;
  for (const profile::ClassTime& c : s.classes) got[c.cls.label()] = {c.seconds * 1e6, c.count};
  const std::map<std::string, std::pair<double, long long>> hand = {
      {"gemm", {90.0, 2}},
      {"attention", {30.0, 1}},
      {"communication all_reduce", {80.0, 1}},
      {"memory-bound activation", {10.0, 1}},
      {"memory-bound norm", {5.0, 1}},
      {"memcpy", {20.0, 1}}};
  REQUIRE(got.size() == hand.size());
  for (const auto& entry : hand) {
    const std::string& label = entry.first;
    const auto& want = entry.second;
    CAPTURE(label);
    REQUIRE(got.count(label) == 1);
    CHECK(got[label].first == doctest::Approx(want.first));
    CHECK(got[label].second == want.second);
  }
  // Span 100..320 us; busy 100..240 (the GEMMs, the all-reduce beside them, the attention),
  // 250..260, 270..275, 300..320: 175 us; idle 45 us.
  CHECK(s.span_s * 1e6 == doctest::Approx(220.0));
  CHECK(s.busy_s * 1e6 == doctest::Approx(175.0));
  CHECK(s.idle_s() * 1e6 == doctest::Approx(45.0));
  CHECK(s.classes.front().cls.label() == "gemm");  // the longest first
}

TEST_CASE("Layers named by op annotations: stepsim's op names and module paths") {
  CHECK(profile::annotated_layer("F mb3 L12 attn") == 12);
  CHECK(profile::annotated_layer("B mb0 L0 experts") == 0);
  CHECK(profile::annotated_layer("module.decoder.layers.27.self_attention") == 27);
  CHECK(profile::annotated_layer("transformer.layer_5.mlp") == 5);
  CHECK(profile::annotated_layer("F mb3 embed") == -1);
  CHECK(profile::annotated_layer("LayerNorm") == -1);
  CHECK(profile::annotated_layer("ProfilerStep#2") == -1);
}
