// How each idle gap of a GPU's compute stream is blamed, on a two-device program built by hand
// (times in ms):
//   device 0 compute  K0 [0,2]            K1 [5,6]                K3 [8,9]
//   device 0 comm          C [2,5] (after K0; K1 waits for it)
//   device 1 compute                       K2 [6,7] (after K1)
//   device 1 p2p                                    P [7,8] (after K2; K3 waits for it)
// Device 0: gap [2,5] waits on C: exposed communication 3; gap [6,8] waits on P, which itself
// waited on K2 of device 1 until 7: exposed 1 (P in flight) and bubble 1 (before P could start).
// Device 1: gap [0,6] waits on K1, compute on another device: bubble 6; [7,9] after its last
// kernel: other idle 2. Each device: compute + exposed + bubble + other idle = T = 9.
#include <doctest/doctest.h>

#include "sim/analysis/step_metrics.hpp"
#include "sim/exec/step_executor.hpp"

using namespace stepsim;
using namespace stepsim::exec;
using analysis::Breakdown;
using analysis::step_metrics;
using analysis::StepMetrics;
using engine::Time;
using workload::StepOpKind;
using workload::StreamKind;

namespace {

int add(StepGraph& g, int device, StreamKind s, StepOpKind k, int ms, std::vector<int> deps = {}) {
  StepOp op;
  op.device = device;
  op.stream = s;
  op.kind = k;
  op.duration = Time::ms(ms);
  op.deps = std::move(deps);
  return g.add(std::move(op));
}

}  // namespace

TEST_CASE(
    "Idle gaps are blamed on exposed communication, bubble or other idle by the chain that held "
    "them") {
  StepGraph g;
  g.devices = 2;
  g.streams.resize(2);
  const int k0 = add(g, 0, StreamKind::compute, StepOpKind::kernel, 2);
  const int c = add(g, 0, StreamKind::comm, StepOpKind::ep_dispatch, 3, {k0});
  const int k1 = add(g, 0, StreamKind::compute, StepOpKind::kernel, 1, {c});
  const int k2 = add(g, 1, StreamKind::compute, StepOpKind::kernel, 1, {k1});
  const int p = add(g, 1, StreamKind::p2p, StepOpKind::pp_send, 1, {k2});
  const int k3 = add(g, 0, StreamKind::compute, StepOpKind::kernel, 1, {p});
  const StepTimeline t = execute_step(g);
  REQUIRE(t.end[k3] == Time::ms(9));
  REQUIRE(t.start[k2] == Time::ms(6));
  const StepMetrics m = step_metrics(g, t);
  CHECK(m.step_s == doctest::Approx(9e-3));
  const Breakdown& d0 = m.per_device[0];
  CHECK(d0.compute == doctest::Approx(4e-3));
  CHECK(d0.exposed_comm == doctest::Approx(4e-3));
  CHECK(d0.bubble == doctest::Approx(1e-3));
  CHECK(d0.other_idle == doctest::Approx(0.0));
  CHECK(d0.overlapped_comm == doctest::Approx(0.0));
  const Breakdown& d1 = m.per_device[1];
  CHECK(d1.compute == doctest::Approx(1e-3));
  CHECK(d1.exposed_comm == doctest::Approx(0.0));
  CHECK(d1.bubble == doctest::Approx(6e-3));
  CHECK(d1.other_idle == doctest::Approx(2e-3));
  CHECK(d1.overlapped_comm == doctest::Approx(0.0));
  CHECK(m.worst_device == 1);
}

TEST_CASE("Communication under compute is overlapped, not exposed") {
  StepGraph g;
  g.devices = 1;
  g.streams.resize(1);
  const int k0 = add(g, 0, StreamKind::compute, StepOpKind::kernel, 2);
  const int c = add(g, 0, StreamKind::comm, StepOpKind::tp_reduce, 3, {k0});  // [2,5]
  add(g, 0, StreamKind::compute, StepOpKind::kernel, 4, {k0});  // [2,6], independent of c
  add(g, 0, StreamKind::compute, StepOpKind::kernel, 1, {c});   // [6,7]
  const StepMetrics m = step_metrics(g, execute_step(g));
  const Breakdown& d = m.per_device[0];
  CHECK(m.step_s == doctest::Approx(7e-3));
  CHECK(d.compute == doctest::Approx(7e-3));
  CHECK(d.exposed_comm == doctest::Approx(0.0));
  CHECK(d.overlapped_comm == doctest::Approx(3e-3));
}
