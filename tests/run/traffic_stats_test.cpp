#include "sim/analysis/traffic_stats.hpp"

#include <doctest/doctest.h>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "sim/run/pipeline.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

const analysis::TrafficStats* row(const std::vector<analysis::TrafficStats>& rows,
                                  const std::string& kind) {
  for (const auto& r : rows)
    if (r.kind == kind) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("Traffic stats: per kind, in the report's order, means over GPUs") {
  const auto spec = test::pipelined_scenario();
  const auto sim = run::simulate_step(spec);
  const auto rows = analysis::traffic_stats(sim.build.graph, sim.timeline, sim.roofline);
  std::vector<std::string> kinds;
  for (const auto& r : rows) kinds.push_back(r.kind);
  CHECK(kinds == std::vector<std::string>{"tp", "pp_activations", "dp_grads"});

  const auto* tp = row(rows, "tp");
  REQUIRE(tp);
  // Megatron's layer: two all-reduces forward and two backward per layer and micro-batch; each
  // rank holds 4 of the 8 layers and runs 16 / 4 (dp) = 4 micro-batches.
  CHECK(tp->ops == doctest::Approx(4.0 * 4 * 4));
  CHECK(tp->collective.find("all-reduce") == 0);
  CHECK(tp->collective.find("over tp=4") != std::string::npos);
  // An all-reduce over 4 GPUs: busbw = size x 2(n-1)/n / time.
  CHECK(tp->busbw == doctest::Approx(tp->bytes * net::bus_factor(net::CollectiveOp::all_reduce, 4) /
                                     tp->seconds));
  for (const auto& r : rows) {
    CHECK(r.bytes > 0.0);
    CHECK(r.seconds >= r.alone_seconds * (1.0 - 1e-9));  // the live fabric only slows
    CHECK(r.basis == "bus");
  }
  const auto* dp = row(rows, "dp_grads");
  REQUIRE(dp);
  CHECK(dp->collective.find("over dp=4") != std::string::npos);
  CHECK(dp->ops == doctest::Approx(1.0));
  const auto* pp = row(rows, "pp_activations");
  REQUIRE(pp);
  CHECK(pp->busbw == doctest::Approx(pp->bytes / pp->seconds));  // a send's factor is 1
}

TEST_CASE("Traffic stats: expert dispatch and combine count RDMA bandwidth, as DeepEP reports it") {
  const auto spec = config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"),
                                          {config::parse_override("training.global_batch=4096")});
  const auto sim = run::simulate_step(spec);
  const auto rows = analysis::traffic_stats(sim.build.graph, sim.timeline, sim.roofline);
  for (const char* kind : {"ep_dispatch", "ep_combine"}) {
    const auto* r = row(rows, kind);
    REQUIRE(r);
    CHECK(r->basis == "RDMA");
    CHECK(r->link.ib > 0.0);
    CHECK(r->busbw == doctest::Approx(r->link.ib / r->seconds));
    CHECK(r->collective.find("DeepEP") == 0);
  }
  const auto* dp = row(rows, "dp_grads");
  REQUIRE(dp);
  CHECK(dp->basis == "bus");
}
