// The collective timer's load shapes go the way the bytes go: a pipeline send and the send back
// between the same two GPUs load opposite directions of their links (full duplex), so on the live
// fabric a forward activation and a backward gradient crossing at once do not slow each other;
// a hierarchical all-reduce loads NVLink, then the NICs, then NVLink, piece by piece as its
// TransferDag ran.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "sim/exec/collective_timer.hpp"
#include "sim/workload/collective_options.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

// A timer on the scenario's layout, selected on pipeline rank 0's first class. The layout, the
// topology and the symmetry it reads are kept with it.
struct Timed {
  explicit Timed(const spec::ScenarioSpec& s)
      : spec(s),
        plan(workload::make_plan(spec)),
        topo(spec.cluster),
        sym(exec::make_symmetry(plan, topo, false)),
        timer(plan, topo, sym, spec.fidelity, workload::send_options(spec, plan), nullptr),
        cells{0, &sym.classes.front()} {}
  // `op` over the data-parallel group, resolved as the program resolves it.
  workload::CollectiveWork collective(net::CollectiveOp op, double bytes) const {
    return workload::make_collective(spec, plan, op, bytes, workload::GroupRole::dp);
  }
  spec::ScenarioSpec spec;
  workload::ParallelPlan plan;
  hw::Topology topo;
  exec::Symmetry sym;
  exec::CollectiveTimer timer;
  exec::DeviceCells cells;  // pipeline rank 0's first class
};

}  // namespace

TEST_CASE("A send and the send back load opposite directions of their links") {
  spec::ScenarioSpec s = test::small_scenario(2, 8);
  s.parallel.pp = 2;
  s.parallel.schedule = workload::schedule_named("1f1b");
  Timed t(s);
  auto& timer = t.timer;
  const hw::Topology& topo = t.topo;
  const double bytes = 64e6;
  const exec::TimedCollective up = timer.send(bytes, 0, 8, t.cells);
  const exec::TimedCollective down = timer.send(bytes, 8, 0, t.cells);
  const int there = up.shape, back = down.shape;
  CHECK(up.time == down.time);
  REQUIRE(there >= 0);
  REQUIRE(back >= 0);
  const auto profiles = timer.take_profiles();
  const auto shapes = timer.take_shapes();
  REQUIRE(shapes[there].size() == 1);  // one phase: its bytes evenly over its run
  REQUIRE(shapes[back].size() == 1);
  std::set<int> a, b;
  double sum_a = 0.0, sum_b = 0.0;
  for (const auto& l : profiles[shapes[there].front().profile]) {
    a.insert(l.link);
    sum_a += l.bytes;
  }
  for (const auto& l : profiles[shapes[back].front().profile]) {
    b.insert(l.link);
    sum_b += l.bytes;
  }
  CHECK(sum_a == doctest::Approx(sum_b));
  for (int l : a) {
    CAPTURE(l);
    CHECK(b.count(l) == 0);
    // Every link of the way there has its reverse on the way back.
    const auto& link = topo.links()[l];
    bool reversed = false;
    for (int m : b) reversed |= topo.links()[m].from == link.to && topo.links()[m].to == link.from;
    CHECK(reversed);
  }
}

namespace {

// dp 16 over two nodes, its all-reduces hierarchical in `chunks` chunks.
spec::ScenarioSpec hierarchical_dp(int chunks) {
  spec::ScenarioSpec s = test::small_scenario(2, 8);
  auto& dp = s.collectives[static_cast<int>(spec::TrafficKind::dp)];
  dp.algorithm = "hierarchical";
  dp.protocol = "simple";
  dp.chunks = chunks;
  return s;
}

}  // namespace

TEST_CASE("A hierarchical all-reduce's load follows its phases: NVLink, NICs, NVLink") {
  Timed timed(hierarchical_dp(1));
  auto& timer = timed.timer;
  const hw::Topology& topo = timed.topo;
  const double bytes = 256e6;
  const exec::TimedCollective run =
      timer.time(timed.collective(net::CollectiveOp::all_reduce, bytes), timed.cells);
  const engine::Time t = run.time;
  const int load = timer.sequence({run});
  REQUIRE(load >= 0);
  const auto profiles = timer.take_profiles();
  const auto shapes = timer.take_shapes();
  const auto& pieces = shapes[load];
  REQUIRE(pieces.size() == 3);
  auto classes = [&](int profile) {
    std::set<hw::LinkClass> c;
    for (const auto& l : profiles.at(profile)) c.insert(topo.links()[l.link].cls);
    return c;
  };
  CHECK(classes(pieces[0].profile) == std::set<hw::LinkClass>{hw::LinkClass::nvlink});
  CHECK(classes(pieces[1].profile).count(hw::LinkClass::nic) == 1);
  CHECK(classes(pieces[2].profile) == std::set<hw::LinkClass>{hw::LinkClass::nvlink});
  CHECK(pieces[0].until > 0.0);
  CHECK(pieces[0].until < pieces[1].until);
  CHECK(pieces[2].until == 1.0);
  // The reduce-scatter and the all-gather move the same bytes at the same rate: equal pieces, but
  // for the protocol's base latency before the first (8.4 us of the whole).
  const double base = 8.4e-6 / t.seconds();
  CHECK(pieces[0].until - base == doctest::Approx(1.0 - pieces[1].until).epsilon(1e-6));
  CHECK(t > engine::Time());
}

TEST_CASE("In chunks, the phases overlap: at most 2P - 1 pieces, the same bytes on every link") {
  auto shape = [](int chunks) {
    Timed timed(hierarchical_dp(chunks));
    const int load =
        timed.timer.time(timed.collective(net::CollectiveOp::all_reduce, 256e6), timed.cells).shape;
    REQUIRE(load >= 0);
    const auto profiles = timed.timer.take_profiles();
    const auto pieces = timed.timer.take_shapes()[load];
    std::map<int, double> bytes;  // per link, over the whole run
    for (const auto& p : pieces)
      for (const auto& l : profiles.at(p.profile)) bytes[l.link] += l.bytes;
    return std::make_pair(pieces.size(), bytes);
  };
  const auto [whole, whole_bytes] = shape(1);
  const auto [chunked, chunked_bytes] = shape(8);
  CHECK(whole == 3);
  CHECK(chunked > 3);
  CHECK(chunked <= 5);
  REQUIRE(chunked_bytes.size() == whole_bytes.size());
  for (const auto& entry : whole_bytes) {
    const int link = entry.first;  // a plain variable: doctest's CAPTURE takes it in a lambda
    CAPTURE(link);
    CHECK(chunked_bytes.at(link) == doctest::Approx(entry.second).epsilon(1e-9));
  }
}
