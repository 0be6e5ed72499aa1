// The Kineto-shaped traces (report/kineto_trace.hpp) against what Holistic Trace Analysis's parser
// requires of a profile, and against the simulated step they show.
#include "sim/report/kineto_trace.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "tests/json_dom.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

struct Span {
  double begin = 0.0, end = 0.0;
};

// Every check of one file of pipeline rank `rank`; returns its kernels' microseconds per stream.
std::map<int, double> check_file(const run::Result& r, int rank) {
  const report::KinetoFile file = report::kineto_files(r.plan(), {rank}).front();
  const std::string text = report::kineto_trace(r, rank);
  CHECK(text == report::kineto_trace(r, rank));  // deterministic
  // HTA finds the rank by this pattern in the raw text, before it parses anything.
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex(R"("rank":\s+(\d+))")));
  CHECK(std::stoi(m[1].str()) == file.gpu);
  CHECK(static_cast<std::size_t>(m.position(0)) < text.find("\"traceEvents\""));

  const test::Json doc = test::parse_json(text);
  const test::Json& info = doc.at("distributedInfo");
  CHECK(info.at("backend") == "nccl");
  CHECK(info.at("world_size").get<int>() == r.plan().world);
  REQUIRE(info.at("pg_count").get<std::size_t>() == info.at("pg_config").size());
  for (const auto& pg : info.at("pg_config")) {
    const auto& ranks = pg.at("ranks");
    CHECK(ranks.size() == pg.at("pg_size").get<std::size_t>());
    CHECK(pg.at("backend_config") == "cuda:nccl");
    bool mine = false;
    for (const auto& g : ranks) mine = mine || g.get<int>() == file.gpu;
    CHECK_MESSAGE(mine, pg.at("pg_name"));
  }
  CHECK(doc.at("deviceProperties").at(0).at("numSms").get<int>() > 0);

  std::map<long long, Span> annotations;  // by External id
  std::set<long long> correlations;
  std::map<int, double> kernel_us;
  std::vector<std::pair<long long, Span>> kernels;
  for (const auto& e : doc.at("traceEvents")) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("name"));
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    if (e.at("ph") != "X") continue;
    // Kineto's key order, which HTA's streaming reader of large files assumes.
    std::vector<std::string> keys;
    for (const auto& [k, v] : e.items()) keys.push_back(k);
    REQUIRE(keys.size() >= 7);
    CHECK(std::vector<std::string>(keys.begin(), keys.begin() + 7) ==
          std::vector<std::string>{"ph", "cat", "name", "pid", "tid", "ts", "dur"});
    const double ts = e.at("ts").get<double>(), dur = e.at("dur").get<double>();
    REQUIRE(std::isfinite(ts));
    REQUIRE(std::isfinite(dur));
    CHECK(ts >= 0.0);
    CHECK(dur >= 0.0);
    const std::string cat = e.at("cat").get<std::string>();
    const auto& args = e.at("args");
    if (cat == "gpu_user_annotation") {
      annotations[args.at("External id").get<long long>()] = {ts, ts + dur};
      continue;
    }
    if (cat != "kernel" && cat != "gpu_memset") continue;
    // HTA's GPU events: a stream and a correlation id.
    CHECK(args.at("stream").get<int>() == e.at("tid").get<int>());
    const long long corr = args.at("correlation").get<long long>();
    CHECK(corr >= 0);
    CHECK(correlations.insert(corr).second);
    kernels.push_back({args.at("External id").get<long long>(), {ts, ts + dur}});
    kernel_us[e.at("tid").get<int>()] += dur;
    const std::string name = e.at("name").get<std::string>();
    if (name.rfind("nccl", 0) == 0)
      for (const char* key : {"Collective name", "In msg nelems", "Out msg nelems", "Group size",
                              "dtype", "In split size", "Out split size"})
        CHECK_MESSAGE(args.contains(key), key);
    if (cat == "gpu_memset") CHECK(name == "Memset (Device)");
  }
  // Each kernel inside the annotation of its op.
  for (const auto& [ext, k] : kernels) {
    REQUIRE(annotations.count(ext) == 1);
    const Span& a = annotations[ext];
    CHECK(k.begin >= a.begin - 1e-6);
    CHECK(k.end <= a.end + 1e-6);
  }
  CHECK(!kernels.empty());
  return kernel_us;
}

// Microseconds device `d` of the step spends in ops of each stream id (waits for the slowest peer
// included, as they are in the collective's kernel).
std::map<int, double> op_us(const run::Result& r, int d) {
  static constexpr int kIds[] = {7, 13, 17, 21};
  std::map<int, double> out;
  const auto& g = r.build.graph;
  for (int k = 0; k < workload::kStreams; ++k)
    for (int id : g.streams[d][k]) {
      const workload::Work* w = g.work(r.program(), id);
      const bool kernels =
          g.ops[id].stream != workload::StreamKind::compute || (w && !w->kernels.empty());
      if (kernels) out[kIds[k]] += (r.timeline.end[id] - r.timeline.start[id]).seconds() * 1e6;
    }
  return out;
}

}  // namespace

TEST_CASE(
    "Kineto traces: what HTA requires, every kernel inside its op, the op's time in kernels") {
  const run::Result r = run::simulate_step(test::pipelined_scenario());
  REQUIRE(r.plan().pp == 2);
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    const std::map<int, double> kernels = check_file(r, rank);
    int d = 0;
    while (r.build.graph.rank_of(d) != rank) ++d;
    const std::map<int, double> ops = op_us(r, d);
    for (const auto& entry : ops) {
      const int stream = entry.first;
      const double us = entry.second;
      CAPTURE(stream);
      CHECK(kernels.count(stream) == 1);
      CHECK(kernels.at(stream) == doctest::Approx(us).epsilon(1e-9));
    }
  }
  // The files named by the GPU each shows.
  const auto files = report::kineto_files(r.plan(), {});
  REQUIRE(files.size() == 2);
  CHECK(files[1].name() == "rank-" + std::to_string(r.plan().first_gpu(1)) + ".pt.trace.json");
}

TEST_CASE("Kineto traces: ZeRO-3 as DeepSpeed 0.5 ran it, its buffer zeroing as a memset") {
  spec::ScenarioSpec s = test::small_scenario(1, 8);
  s.parallel.zero = 3;
  s.parallel.zero3 = spec::zero3_defaults(spec::Zero3Impl::deepspeed_05);
  const run::Result r = run::simulate_step(s);
  check_file(r, 0);
  const test::Json doc = test::parse_json(report::kineto_trace(r, 0));
  int memsets = 0, gathers = 0;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    memsets += e.at("cat") == "gpu_memset";
    if (e.at("name").get<std::string>().rfind("ncclDevKernel_AllGather", 0) == 0) {
      ++gathers;
      CHECK(e.at("args").at("Collective name") == "_allgather_base");
      CHECK(e.at("args").at("Group size").get<int>() == 8);
    }
  }
  int zeroings = 0, gather_ops = 0;
  for (const auto& op : r.build.graph.ops) {
    if (op.device != 0) continue;
    zeroings += op.part == "zero gather buffer";
    gather_ops += op.kind == workload::StepOpKind::zero_gather;
  }
  CHECK(memsets == zeroings);
  CHECK(gathers == gather_ops);  // one weight tensor per module: one collective each
  CHECK(gathers > 0);
}
