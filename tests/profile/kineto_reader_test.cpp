#include "sim/profile/kineto_reader.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "sim/engine/user_error.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

namespace {

std::string scratch(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

}  // namespace

TEST_CASE("A Kineto trace is read event by event, with its rank and the args it names") {
  std::vector<profile::ProfileEvent> events;
  const profile::ProfileFile f =
      profile::read_kineto(test::source_path("tests/profile/traces/hand.pt.trace.json"),
                           [&](const profile::ProfileEvent& e) { events.push_back(e); });
  CHECK(f.rank == 3);
  CHECK(f.world_size == 8);
  CHECK(f.events == 14);
  REQUIRE(events.size() == 14);
  const profile::ProfileEvent& nccl = events[8];
  CHECK(nccl.ph == 'X');
  CHECK(nccl.cat == "kernel");
  CHECK(nccl.pid == 3);
  CHECK(nccl.tid == 13);
  CHECK(nccl.ts == 150.0);
  CHECK(nccl.dur == 80.0);
  CHECK(nccl.stream == 13);
  CHECK(nccl.correlation == 12);
  CHECK(nccl.external == 3);
  CHECK(nccl.collective == "allreduce");
  CHECK(nccl.group_size == 8);
  CHECK(events[0].ph == 'M');
  CHECK(events[5].ph == 's');  // a flow start: read, not a complete event
}

TEST_CASE("Keys in any order, the array form, nested values skipped") {
  const std::string path =
      scratch("stepsim_array.json",
              R"([{"args": {"stream": 7, "nested": {"name": "not mine"}}, "dur": 2, "name": "k", )"
              R"("ts": 1.5, "ph": "X", "cat": "kernel", "pid": 0, "tid": 7}])");
  std::vector<profile::ProfileEvent> events;
  const auto f =
      profile::read_kineto(path, [&](const profile::ProfileEvent& e) { events.push_back(e); });
  CHECK(f.rank == -1);
  REQUIRE(events.size() == 1);
  CHECK(events[0].name == "k");
  CHECK(events[0].ts == 1.5);
  CHECK(events[0].stream == 7);
  std::filesystem::remove(path);
}

TEST_CASE("A trace that is not JSON is refused at its line; one without events too") {
  const std::string bad = scratch("stepsim_bad_trace.json", "{\n  \"traceEvents\": [\n    {,}\n");
  try {
    profile::read_kineto(bad, [](const profile::ProfileEvent&) {});
    FAIL("no error");
  } catch (const engine::UserError& e) {
    CHECK(e.loc().file == bad);
    CHECK(e.loc().line == 3);
    CHECK(std::string(e.what()).find("not JSON") != std::string::npos);
  }
  const std::string none = scratch("stepsim_no_events.json", R"({"schemaVersion": 1})");
  CHECK_THROWS_AS(profile::read_kineto(none, [](const profile::ProfileEvent&) {}),
                  engine::UserError);
  CHECK_THROWS_AS(
      profile::read_kineto("/nonexistent/trace.json", [](const profile::ProfileEvent&) {}),
      engine::UserError);
  std::filesystem::remove(bad);
  std::filesystem::remove(none);
}
