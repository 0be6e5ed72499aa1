// The rules a Trace Event Format importer (Perfetto's JSON importer, chrome://tracing) applies,
// checked on simulated steps: complete events on one thread nest (never partly overlap), every
// flow start and end lies inside a slice of its own thread (the importers bind flows to the
// enclosing slice and drop unbound ones), every thread and process that has events is named, and
// timestamps and durations are finite and non-negative.
#include "sim/report/chrome_trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/analysis/kernel_listing.hpp"
#include "tests/json_dom.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

struct Slice {
  double begin, end;
};

// Checks the rules and returns the number of flow arrows (matched start/end pairs).
std::size_t check_importable(const std::string& text) {
  const test::Json trace = test::parse_json(text);
  std::map<std::pair<double, double>, std::vector<Slice>> slices;  // (pid, tid) -> slices
  std::set<std::pair<double, double>> named_threads;
  std::set<double> named_processes;
  std::vector<const test::Json*> flows;
  for (const auto& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph").get<std::string>();
    const double pid = e.at("pid").get<double>();
    if (ph == "M") {
      if (e.at("name").get<std::string>() == "thread_name")
        named_threads.insert({pid, e.at("tid").get<double>()});
      if (e.at("name").get<std::string>() == "process_name") named_processes.insert(pid);
      continue;
    }
    const double ts = e.at("ts").get<double>();
    REQUIRE(std::isfinite(ts));
    CHECK(ts >= 0.0);
    if (ph == "X") {
      const double dur = e.at("dur").get<double>();
      REQUIRE(std::isfinite(dur));
      CHECK(dur >= 0.0);
      slices[{pid, e.at("tid").get<double>()}].push_back({ts, ts + dur});
    } else if (ph == "s" || ph == "f") {
      CHECK(e.contains("id"));
      flows.push_back(&e);
    } else {
      CHECK(ph == "C");
    }
  }
  REQUIRE_FALSE(slices.empty());
  for (auto& [thread, list] : slices) {
    CHECK(named_threads.count(thread) == 1);
    CHECK(named_processes.count(thread.first) == 1);
    std::sort(list.begin(), list.end(), [](const Slice& a, const Slice& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    std::vector<double> open;  // ends of the enclosing slices
    for (const Slice& s : list) {
      while (!open.empty() && open.back() <= s.begin + 1e-9) open.pop_back();
      if (!open.empty()) CHECK(s.end <= open.back() + 1e-9);  // nested, not partly overlapping
      open.push_back(s.end);
    }
  }
  std::map<double, std::pair<const test::Json*, const test::Json*>> arrows;  // id -> (start, end)
  for (const auto* f : flows) {
    const auto it = slices.find({f->at("pid").get<double>(), f->at("tid").get<double>()});
    REQUIRE(it != slices.end());
    const double ts = f->at("ts").get<double>();
    CHECK(std::any_of(it->second.begin(), it->second.end(),
                      [&](const Slice& s) { return s.begin <= ts + 1e-9 && ts <= s.end + 1e-9; }));
    auto& pair = arrows[f->at("id").get<double>()];
    (f->at("ph").get<std::string>() == "s" ? pair.first : pair.second) = f;
  }
  for (const auto& arrow : arrows) {
    const double id = arrow.first;  // a plain variable: doctest's CAPTURE takes it in a lambda
    const auto& pair = arrow.second;
    CAPTURE(id);
    REQUIRE(pair.first != nullptr);
    REQUIRE(pair.second != nullptr);
    CHECK(pair.first->at("ts").get<double>() <=
          pair.second->at("ts").get<double>());  // an arrow never points back in time
  }
  return arrows.size();
}

spec::ScenarioSpec pipeline(spec::Schedule schedule) {
  auto spec = test::small_scenario(4, 8);
  spec.parallel.pp = 4;
  spec.parallel.schedule = schedule;
  spec.training.global_batch = 64;
  spec.fidelity = spec::NetworkFidelity::flow;
  return spec;
}

}  // namespace

TEST_CASE("Traces of every schedule follow the importers' rules, per op, layer and kernel") {
  using spec::Schedule;
  for (auto schedule :
       {workload::schedule_named("gpipe"), workload::schedule_named("1f1b"),
        workload::schedule_named("interleaved"), workload::schedule_named("zb1p"),
        workload::schedule_named("dualpipe"), workload::schedule_named("dualpipev")}) {
    auto spec = pipeline(schedule);
    if (schedule == workload::schedule_named("interleaved")) spec.parallel.virtual_stages = 2;
    if (schedule == workload::schedule_named("dualpipev")) spec.parallel.pp = 2;
    const auto sim = run::simulate_step(spec);
    CAPTURE(workload::to_string(schedule));
    report::TraceOptions o;
    CHECK(check_importable(report::chrome_trace(sim, o)) > 0);  // pipeline sends have arrows
    o.detail = report::TraceDetail::layer;
    CHECK(check_importable(report::chrome_trace(sim, o)) > 0);
    o.detail = report::TraceDetail::kernel;
    CHECK(check_importable(report::chrome_trace(sim, o)) > 0);
    o.ranks = {0, 1};
    check_importable(report::chrome_trace(sim, o));
  }
}

TEST_CASE("A trace with an embedding-only first stage and a head-only last stage") {
  auto spec = pipeline(workload::schedule_named("1f1b"));
  spec.parallel.stage_layers = {0, 4, 4, 0};
  const auto sim = run::simulate_step(spec);
  CHECK(check_importable(report::chrome_trace(sim, {})) > 0);
}

TEST_CASE("A ZeRO-3 trace follows the importers' rules") {
  auto spec = test::small_scenario(2, 8);
  spec.parallel.zero = 3;
  spec.training.global_batch = 32;
  const auto sim = run::simulate_step(spec);
  check_importable(report::chrome_trace(sim, {}));
}

TEST_CASE("Slices are named by operation; per layer merges a stream's consecutive ops of a layer") {
  auto spec = pipeline(workload::schedule_named("1f1b"));
  const auto sim = run::simulate_step(spec);
  struct Events {
    std::size_t count = 0, ops = 0;  // events, and the ops they stand for
    std::set<std::string> names;
  };
  auto events = [&](report::TraceDetail detail) {
    report::TraceOptions o;
    o.detail = detail;
    const test::Json trace = test::parse_json(report::chrome_trace(sim, o));
    Events e;
    for (const auto& ev : trace.at("traceEvents")) {
      if (ev.at("ph").get<std::string>() != "X" || ev.at("cat").get<std::string>() == "gpu_kernel")
        continue;
      ++e.count;
      e.names.insert(ev.at("name").get<std::string>());
      const test::Json& args = ev.at("args");
      // One op: its full name in args; several: how many.
      e.ops += args.contains("ops") ? static_cast<std::size_t>(args.at("ops").get<double>()) : 1;
      if (!args.contains("ops"))
        CHECK(args.at("op").get<std::string>().substr(0, 1) == args.at("phase").get<std::string>());
    }
    return e;
  };
  const Events op = events(report::TraceDetail::op), layer = events(report::TraceDetail::layer);
  CHECK(op.ops == op.count);
  CHECK(op.names.size() <= 30);
  CHECK(op.names.count("attn fwd") == 1);
  CHECK(op.names.count("send activations") == 1);
  // Merged: fewer events, every op still in one of them.
  CHECK(layer.ops == op.count);
  CHECK(layer.count < 0.8 * op.count);  // 0.63 here; 0.44 for the shipped DeepSeek 1F1B
  CHECK(layer.names.count("layer fwd") == 1);
  CHECK(layer.names.count("layer bwd") == 1);
}

TEST_CASE(
    "Per kernel: each compute op's kernels nested in it, named as stepsim kernels lists them") {
  auto spec = pipeline(workload::schedule_named("1f1b"));
  const auto sim = run::simulate_step(spec);
  report::TraceOptions o;
  o.detail = report::TraceDetail::kernel;
  const test::Json trace = test::parse_json(report::chrome_trace(sim, o));
  std::set<std::string> listed;  // what stepsim kernels lists, for every stage
  for (int stage = 0; stage < spec.parallel.pp; ++stage)
    for (const auto& row : analysis::list_kernels(spec, workload::make_plan(spec), stage).rows)
      listed.insert(row.kernel);
  // The ops' events, then each kernel event inside the op event that precedes it on its thread.
  std::size_t ops = 0, kernels = 0, expected = 0;
  const test::Json* parent = nullptr;
  double covered = 0.0;
  auto close = [&] {
    if (parent) CHECK(covered == doctest::Approx(parent->at("dur").get<double>()).epsilon(1e-9));
  };
  for (const auto& ev : trace.at("traceEvents")) {
    if (ev.at("ph").get<std::string>() != "X") continue;
    if (ev.at("cat").get<std::string>() != "gpu_kernel") {
      close();
      ++ops;
      parent =
          ev.at("tid").get<double>() == 0 ? &ev : nullptr;  // compute streams of the node's GPU 0
      covered = 0.0;
      continue;
    }
    ++kernels;
    REQUIRE(parent != nullptr);
    CHECK(ev.at("pid").get<double>() == parent->at("pid").get<double>());
    CHECK(ev.at("ts").get<double>() >= parent->at("ts").get<double>() - 1e-9);
    CHECK(ev.at("ts").get<double>() + ev.at("dur").get<double>() <=
          parent->at("ts").get<double>() + parent->at("dur").get<double>() + 1e-9);
    covered += ev.at("dur").get<double>();
    const std::string& name = ev.at("name").get<std::string>();
    const test::Json& op_args = parent->at("args");  // a layer's op, not the step's end
    if (op_args.contains("layer") && op_args.at("layer").get<double>() >= 0)
      CHECK_MESSAGE(listed.count(name) == 1, name);
    CHECK(ev.at("args").at("alone_us").get<double>() > 0.0);
  }
  close();
  // As many kernel events as the compute ops' works launch.
  const auto& g = sim.build.graph;
  for (int d = 0; d < g.devices; ++d)
    for (int id : g.streams[d][static_cast<int>(workload::StreamKind::compute)]) {
      const workload::Work* work = g.work(sim.prepared.program, id);
      REQUIRE(work != nullptr);  // every compute op times a work of the program
      expected += work->kernels.size();
    }
  CHECK(kernels == expected);
  CHECK(kernels > 3 * ops);
  CHECK(listed.count("qkv_proj fprop") == 1);
}

TEST_CASE(
    "A straggler in the trace: the collectives of the other GPUs name it as the peer they "
    "waited for, its own name it as their pace") {
  auto spec = test::small_scenario(2, 8);
  spec.parallel.zero = 3;
  spec.training.global_batch = 32;
  spec::FaultSpec f;
  f.kind = spec::FaultKind::straggler;
  f.gpu = 5;
  f.factor = 1.5;
  spec.cluster.faults.push_back(f);
  const auto sim = run::simulate_step(spec);
  const std::string text = report::chrome_trace(sim, {});
  check_importable(text);
  int waited = 0, paced = 0;
  const test::Json trace = test::parse_json(text);
  for (const auto& e : trace.at("traceEvents")) {
    if (!e.contains("args")) continue;
    const auto& a = e.at("args");
    if (a.contains("waited_for")) {
      CHECK(a.at("waited_for").get<std::string>().rfind("GPU 5 (pipeline rank 0", 0) == 0);
      ++waited;
    }
    if (a.contains("paced_by")) {
      CHECK(a.at("paced_by").get<std::string>() == "GPU 5 at 1.500x");
      ++paced;
    }
  }
  CHECK(waited > 0);
  CHECK(paced > 0);
  // Without the straggler, no peer to name.
  spec.cluster.faults.clear();
  const std::string plain = report::chrome_trace(run::simulate_step(spec), {});
  CHECK(plain.find("waited_for") == std::string::npos);
  CHECK(plain.find("paced_by") == std::string::npos);
}
