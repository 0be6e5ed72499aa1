#include "sim/workload/step_executor.hpp"

#include <doctest/doctest.h>

using namespace stepsim;
using namespace stepsim::workload;
using engine::Time;

namespace {

StepGraph one_device() {
  StepGraph g;
  g.devices = 1;
  g.streams.resize(1);
  g.nvlink_capacity = 160e9;
  g.nic_capacity = 50e9;
  return g;
}

int add(StepGraph& g, StreamKind s, StepOpKind k, Time d, double ib, double nvlink,
        std::vector<int> deps = {}) {
  StepOp op;
  op.stream = s;
  op.kind = k;
  op.duration = d;
  op.ib_bytes = ib;
  op.nvlink_bytes = nvlink;
  op.deps = std::move(deps);
  return g.add(std::move(op));
}

}  // namespace

TEST_CASE("Streams run in order; an op waits for its dependencies") {
  StepGraph g = one_device();
  const int a = add(g, StreamKind::compute, StepOpKind::kernel, Time::ms(2), 0, 0);
  const int b = add(g, StreamKind::compute, StepOpKind::kernel, Time::ms(3), 0, 0);
  const int c = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(1), 0, 0, {a});
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a] == Time::ms(2));
  CHECK(t.start[b] == Time::ms(2));
  CHECK(t.start[c] == Time::ms(2));
  CHECK(t.step == Time::ms(5));
}

TEST_CASE("Concurrent communication ops of a device share its NIC, max-min fair") {
  // Each alone moves 0.3 GB in 10 ms: 30 GB/s of the 50 GB/s NIC. Together they want 60 GB/s, so
  // both run at 50/60 of their speed and take 12 ms.
  StepGraph g = one_device();
  const int a = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), 0.3e9, 0);
  const int b = add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), 0.3e9, 0);
  const int c = add(g, StreamKind::dp, StepOpKind::dp_grads, Time::ms(10), 0,
                    1.0e9);  // NVLink only: unaffected
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.012).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.012).epsilon(1e-9));
  CHECK(t.end[c] == Time::ms(10));
}

TEST_CASE("Sharing starts and stops with the overlap; an op alone keeps its own time") {
  // a runs alone for 5 ms (half done), then with b at 50/60 speed: its other half takes 6 ms, to
  // 11 ms. b has done 5/6 of 6 ms = half by then and finishes alone 5 ms later, at 16 ms.
  StepGraph g = one_device();
  const int k = add(g, StreamKind::compute, StepOpKind::kernel, Time::ms(5), 0, 0);
  const int a = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), 0.3e9, 0);
  const int b = add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), 0.3e9, 0, {k});
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.011).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.016).epsilon(1e-9));
  // Without capacities (analytic or free network) the ops do not interact.
  g.nvlink_capacity = g.nic_capacity = 0.0;
  const StepTimeline alone = execute_step(g);
  CHECK(alone.end[a] == Time::ms(10));
  CHECK(alone.end[b] == Time::ms(15));
}

TEST_CASE("An op that alone uses more than the nominal capacity is not slowed by it") {
  StepGraph g = one_device();
  const int a =
      add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), 0.6e9, 0);  // 60 GB/s
  CHECK(execute_step(g).end[a] == Time::ms(10));
}
