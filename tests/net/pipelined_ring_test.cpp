// A ring cut into chunks, against the closed form of a chunked ring (transfer_dag.hpp): on n GPUs
// a reduce-scatter of S has n-1 steps; cut into c chunks, each link carries (n-1)·c chunk-steps
// of S/(c·n) in n-1+c-1 stages. With one step in flight per connection every stage pays the
// step's latency α; with w slots a later chunk pays what the window leaves exposed:
//   t = base + (n-1)·α + (c-1)·max(0, (α + t_c)/w - t_c) + (n-1) · c · t_c,  t_c = S/(c·n·β).
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/net/collective_runner.hpp"
#include "sim/net/transfer_dag.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using net::CollectiveOp;

TEST_CASE("A pipelined ring with c chunks matches the chunked ring's closed form") {
  const hw::Topology t(config::load_cluster(test::source_path("topologies/h800-1x8.yaml"), {}));
  // 1 MiB: chunk-steps of a few microseconds, so that the window leaves latency exposed.
  const double S = 1.0 * (1 << 20), beta = 160e9;
  for (const char* protocol : {"simple", "ll"}) {
    const net::ProtocolDef& p = net::protocol_def(*net::find_protocol(protocol));
    const double alpha = 3.3e-6 + p.nvlink_sync_s;  // route latency + protocol sync per step
    for (int n : {2, 4, 8})
      for (int c : {1, 2, 5, 16})
        for (int slots : {1, net::kSlots})
          for (hw::Fidelity f : {hw::Fidelity::analytic, hw::Fidelity::flow}) {
            CAPTURE(protocol);
            CAPTURE(n);
            CAPTURE(c);
            CAPTURE(slots);
            net::PlanOptions o;
            o.algorithm = "ring";
            o.protocol = protocol;
            o.chunks = c;
            const auto group = net::parse_group("ranks:0-" + std::to_string(n - 1), t, "test");
            const auto plan = net::plan_collective(CollectiveOp::reduce_scatter, S, group, t, o);
            REQUIRE(plan.chunks == c);
            const auto run = net::run_dag(plan, net::make_dag(plan, c, slots), t, f);
            const double chunk_step = S / (c * n) / (beta * p.payload);
            const double later =
                std::max(0.0, (alpha + chunk_step) / slots - chunk_step);  // alpha when w = 1
            const double expected =
                p.base_s + (n - 1) * alpha + (c - 1) * later + (n - 1.0) * c * chunk_step;
            CHECK(run.end.seconds() == doctest::Approx(expected).epsilon(1e-9));
          }
  }
}

TEST_CASE("The tuner cuts a collective into chunks of the protocol's step, over its channels") {
  const hw::Topology t(config::load_cluster(test::source_path("topologies/h800-1x8.yaml"), {}));
  const auto group = net::parse_group("world", t, "test");
  net::PlanOptions o;
  o.algorithm = "ring";
  o.protocol = "simple";
  o.channels = 4;
  // Ring span S/n per step: 1 GiB / 8 over 4 channels of 512 KiB chunks = 64 chunks.
  CHECK(net::plan_collective(CollectiveOp::all_reduce, 1 << 30, group, t, o).chunks == 64);
  o.chunk_bytes = 1 << 20;
  CHECK(net::plan_collective(CollectiveOp::all_reduce, 1 << 30, group, t, o).chunks == 32);
  o.chunk_bytes = 0;
  o.protocol = "ll";  // 32 KiB of payload per step
  CHECK(net::plan_collective(CollectiveOp::all_reduce, 1 << 30, group, t, o).chunks == 1024);
  CHECK(net::plan_collective(CollectiveOp::all_reduce, 1 << 20, group, t, o).chunks == 1);
}
