// Ring attention in a simulated step: each step's attention block runs beside the shift of the
// K, V it holds, the next step starts when both are done, and a shift alone takes the ring
// shift's closed form (one step: the protocol's base, α + sync, S/β).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "sim/run/pipeline.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;

namespace {

struct Ring {
  std::map<int, int> steps, shifts;  // by index: op id
  int before = -1;                   // the attention's kernels before its core
};

// The ring ops of device 0's micro-batch 0, layer `layer`, in `phase`.
Ring ring_of(const exec::StepGraph& g, workload::Phase phase, int layer) {
  Ring r;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const exec::StepOp& op = g.ops[i];
    if (op.device != 0 || op.mb != 0 || op.layer != layer || op.phase != phase) continue;
    const std::size_t space = op.part.rfind(' ');
    const std::string head = op.part.substr(0, space == std::string::npos ? 0 : space);
    if (head == "cp attn step") r.steps[std::stoi(op.part.substr(space))] = static_cast<int>(i);
    if (op.kind == workload::StepOpKind::cp_exchange)
      r.shifts[std::stoi(op.part.substr(space))] = static_cast<int>(i);
    if (op.part == "attn") r.before = static_cast<int>(i);
  }
  return r;
}

}  // namespace

TEST_CASE("Ring attention steps overlap the next step's shift; a shift takes its closed form") {
  spec::ScenarioSpec s = test::small_scenario(4, 8);  // NVLink 200 GB/s, 3 us
  s.parallel.tp = 2;
  s.parallel.cp = 4;  // a cp group of 4 GPUs, 2 apart, on one node
  s.training.seq_len = 8192;
  s.fidelity = spec::NetworkFidelity::analytic;
  s.collectives[static_cast<int>(spec::TrafficKind::cp)] = {"shift", "simple", 0, 1};
  const run::Result sim = run::simulate_step(s);
  const exec::StepGraph& g = sim.build.graph;
  const auto& start = sim.timeline.start;
  const auto& end = sim.timeline.end;
  auto s_of = [&](int op) { return start[op].seconds(); };
  auto e_of = [&](int op) { return end[op].seconds(); };

  const Ring f = ring_of(g, workload::Phase::forward, 3);
  REQUIRE(f.steps.size() == 4);
  REQUIRE(f.shifts.size() == 3);
  REQUIRE(f.before >= 0);
  // One shift of K and V: 8192 / 4 tokens x 8 heads per GPU x (64 + 64) x 2 bytes, over
  // NVLink: Simple's base 8.4 us, then α + sync + S/β (net/protocol.hpp).
  const double S = 8192.0 / 4 * 8 * 128 * 2;
  const double shift = 8.4e-6 + 3e-6 + 2.8e-6 + S / 200e9;
  for (const auto& shift_op : f.shifts) {
    const auto i = shift_op.first;  // plain variables: doctest's CAPTURE takes them in a lambda
    const auto op = shift_op.second;
    CAPTURE(i);
    CHECK(g.facts[op].ib_bytes == 0.0);
    CHECK(g.facts[op].nvlink_bytes == doctest::Approx(S).epsilon(1e-9));
    CHECK(e_of(op) - s_of(op) == doctest::Approx(shift).epsilon(1e-9));
  }
  // Step 0 and shift 0 start together once the projections are done; step i+1 starts when step
  // i and shift i have ended; shift i+1 right after shift i.
  CHECK(s_of(f.steps.at(0)) == doctest::Approx(e_of(f.before)).epsilon(1e-12));
  CHECK(s_of(f.shifts.at(0)) == doctest::Approx(e_of(f.before)).epsilon(1e-12));
  for (int i = 0; i + 1 < 4; ++i) {
    CAPTURE(i);
    CHECK(s_of(f.steps.at(i + 1)) ==
          doctest::Approx(std::max(e_of(f.steps.at(i)), e_of(f.shifts.at(i)))).epsilon(1e-12));
    if (i + 1 < 3) CHECK(s_of(f.shifts.at(i + 1)) == doctest::Approx(e_of(f.shifts.at(i))));
  }

  // Backward: shift i > 0 carries the dK, dV of step i-1, so it starts once that step is done.
  const Ring b = ring_of(g, workload::Phase::backward_weight, 3);
  REQUIRE(b.steps.size() == 4);
  REQUIRE(b.shifts.size() == 4);
  for (int i = 1; i < 4; ++i) {
    CAPTURE(i);
    CHECK(s_of(b.shifts.at(i)) ==
          doctest::Approx(std::max(e_of(b.steps.at(i - 1)), e_of(b.shifts.at(i - 1))))
              .epsilon(1e-12));
    CHECK(s_of(b.steps.at(i)) ==
          doctest::Approx(std::max(e_of(b.steps.at(i - 1)), e_of(b.shifts.at(i - 1))))
              .epsilon(1e-12));
  }
  // The middle shifts carry K, V and dK, dV: twice the bytes, and their time.
  CHECK(g.facts[b.shifts.at(1)].nvlink_bytes == doctest::Approx(2 * S).epsilon(1e-9));
}
