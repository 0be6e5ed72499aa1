#include "sim/exec/step_executor.hpp"

#include <doctest/doctest.h>

using namespace stepsim;
using namespace stepsim::exec;
using engine::Time;
using workload::StepOpKind;
using workload::StreamKind;

namespace {

// Links 0 and 1: two NICs of 50 GB/s; link 2: an NVLink port of 160 GB/s.
StepGraph devices(int n) {
  StepGraph g;
  g.devices = n;
  g.streams.resize(n);
  g.link_capacity = {50e9, 50e9, 160e9};
  return g;
}

int add(StepGraph& g, StreamKind s, StepOpKind k, Time d, std::vector<net::LinkLoad> load,
        std::vector<int> deps = {}, int device = 0) {
  StepOp op;
  op.device = device;
  op.stream = s;
  op.kind = k;
  op.duration = d;
  if (!load.empty()) op.load = g.add_shape(std::move(load));
  op.deps = std::move(deps);
  return g.add(std::move(op));
}

}  // namespace

TEST_CASE("Streams run in order; an op waits for its dependencies") {
  StepGraph g = devices(1);
  const int a = add(g, StreamKind::compute, StepOpKind::kernel, Time::ms(2), {});
  const int b = add(g, StreamKind::compute, StepOpKind::kernel, Time::ms(3), {});
  const int c = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(1), {}, {a});
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a] == Time::ms(2));
  CHECK(t.start[b] == Time::ms(2));
  CHECK(t.start[c] == Time::ms(2));
  CHECK(t.step == Time::ms(5));
}

TEST_CASE("Communication ops in flight share the links they cross, max-min fair") {
  // Each alone moves 0.3 GB over NIC 0 in 10 ms: 30 GB/s of its 50 GB/s. Together they want
  // 60 GB/s, so both run at 50/60 of their speed and take 12 ms. The third crosses NIC 1 and the
  // NVLink port only: unaffected.
  StepGraph g = devices(1);
  const int a = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.3e9}});
  const int b = add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}});
  const int c =
      add(g, StreamKind::dp, StepOpKind::dp_grads, Time::ms(10), {{1, 0.3e9}, {2, 1.0e9}});
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.012).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.012).epsilon(1e-9));
  CHECK(t.end[c] == Time::ms(10));
}

TEST_CASE("Ops of different devices meet on a shared link") {
  // Device 0's reduction and device 1's send both cross NIC 0 (a leaf uplink, say): the same
  // 50/60 as on one device. Device 1's other op, on NIC 1, keeps its time.
  StepGraph g = devices(2);
  const int a = add(g, StreamKind::dp, StepOpKind::dp_grads, Time::ms(10), {{0, 0.3e9}}, {}, 0);
  const int b = add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}}, {}, 1);
  const int c =
      add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{1, 0.3e9}}, {}, 1);
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.012).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.012).epsilon(1e-9));
  CHECK(t.end[c] == Time::ms(10));
}

TEST_CASE("Max-min: an op slowed on one link leaves the rest of another to the ops there") {
  // a and b share NIC 0 (each asks 40 GB/s: x = 50/80 = 0.625, 16 ms). b also crosses NIC 1,
  // where c asks 20 GB/s: 40 + 20 would not fit, but b, held to 25 GB/s by NIC 0, leaves c its
  // full speed. (A proportional share of NIC 1 would have slowed c.)
  StepGraph g = devices(1);
  const int a = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.4e9}});
  const int b =
      add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.4e9}, {1, 0.4e9}});
  const int c = add(g, StreamKind::dp, StepOpKind::dp_grads, Time::ms(10), {{1, 0.2e9}});
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.016).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.016).epsilon(1e-9));
  CHECK(t.end[c] == Time::ms(10));  // 25 + 20 GB/s fit in NIC 1
}

TEST_CASE("Sharing starts and stops with the overlap; an op alone keeps its own time") {
  // a runs alone for 5 ms (half done), then with b at 50/60 speed: its other half takes 6 ms, to
  // 11 ms. b has done 5/6 of 6 ms = half by then and finishes alone 5 ms later, at 16 ms.
  StepGraph g = devices(1);
  const int k = add(g, StreamKind::compute, StepOpKind::kernel, Time::ms(5), {});
  const int a = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.3e9}});
  const int b = add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}}, {k});
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.011).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.016).epsilon(1e-9));
  // Without capacities (analytic or free network) the ops do not interact.
  g.link_capacity.clear();
  const StepTimeline alone = execute_step(g);
  CHECK(alone.end[a] == Time::ms(10));
  CHECK(alone.end[b] == Time::ms(15));
}

TEST_CASE("An op that alone uses more than the nominal capacity is not slowed by it") {
  StepGraph g = devices(1);
  const int a =
      add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.6e9}});  // 60 GB/s
  CHECK(execute_step(g).end[a] == Time::ms(10));
}

TEST_CASE("Merging equivalent links changes no time") {
  // Two symmetric ops over NICs 0 and 1 (alike in both profiles) and one over NIC 0 only: NICs 0
  // and 1 stay apart (the third op loads them differently); the NVLink port merges with nothing.
  StepGraph g = devices(1);
  add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.3e9}, {1, 0.3e9}});
  add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}, {1, 0.3e9}, {2, 1e9}});
  add(g, StreamKind::dp, StepOpKind::dp_grads, Time::ms(4), {{0, 0.1e9}});
  StepGraph merged = g;
  merged.merge_equivalent_links();
  CHECK(merged.link_capacity.size() == 3);
  const StepTimeline a = execute_step(g), b = execute_step(merged);
  for (std::size_t i = 0; i < g.ops.size(); ++i) CHECK(a.end[i] == b.end[i]);
  // Without the third op NICs 0 and 1 are one class.
  StepGraph two = devices(1);
  add(two, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.3e9}, {1, 0.3e9}});
  add(two, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}, {1, 0.3e9}});
  StepGraph two_merged = two;
  two_merged.merge_equivalent_links();
  CHECK(two_merged.link_capacity.size() == 1);
  const StepTimeline c = execute_step(two), d = execute_step(two_merged);
  CHECK(c.end[0] == d.end[0]);
  CHECK(c.end[1] == d.end[1]);
  CHECK(c.end[0].seconds() == doctest::Approx(0.012).epsilon(1e-9));
}

TEST_CASE("An op's load changes piece by piece: a link busy in one piece only is shared then") {
  // Op a (10 ms alone) moves 0.25 GB over NIC 0 in the first half of its run, then nothing
  // there: 50 GB/s, the whole NIC, for 5 ms. Op b asks 30 GB/s of NIC 0 over its 10 ms. While a
  // is in its first piece both run at 50/80 of their speed; a's first half then takes 8 ms, b
  // has done half of its run, and both finish the rest alone: 13 ms each. Spread evenly over its
  // run, a would ask 25 GB/s: both at 50/55, done at 11 ms.
  StepGraph g = devices(1);
  const int a = add(g, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {});
  const int b = add(g, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}});
  g.loads.push_back({{0, 0.25e9}});
  g.shapes.push_back({{0.5, static_cast<int>(g.loads.size()) - 1}, {1.0, -1}});
  g.ops[a].load = static_cast<int>(g.shapes.size()) - 1;
  const StepTimeline t = execute_step(g);
  CHECK(t.end[a].seconds() == doctest::Approx(0.013).epsilon(1e-9));
  CHECK(t.end[b].seconds() == doctest::Approx(0.013).epsilon(1e-9));
  StepGraph even = devices(1);
  add(even, StreamKind::comm, StepOpKind::ep_dispatch, Time::ms(10), {{0, 0.25e9}});
  add(even, StreamKind::p2p, StepOpKind::pp_send, Time::ms(10), {{0, 0.3e9}});
  const StepTimeline e = execute_step(even);
  CHECK(e.end[0].seconds() == doctest::Approx(0.011).epsilon(1e-9));
}

TEST_CASE("A memory-bound kernel and a communication copy share their GPU's HBM, max-min fair") {
  // HBM of 3 TB/s. The kernel alone reads and writes 25 GB in 10 ms (2.5 TB/s); the exchange
  // beside it moves 10 GB through the GPU's memory in 10 ms (1 TB/s) besides its NIC bytes.
  // Together they ask 3.5 TB/s of 3: both run at 3/3.5 of their speed and take 11.67 ms; the
  // exchange's NIC share (10 of 50 GB/s) does not bind. A GEMM-like kernel asking 1 TB/s beside
  // the same exchange (2 TB/s together) keeps its time.
  for (const bool heavy : {true, false}) {
    StepGraph g = devices(1);
    g.hbm_capacity = 3e12;
    g.compute_shape = g.add_shape({});
    StepOp k;
    k.stream = StreamKind::compute;
    k.duration = Time::ms(10);
    k.demand.hbm_bytes = heavy ? 25e9 : 10e9;
    k.load = g.compute_shape;
    const int a = g.add(k);
    StepOp c;
    c.stream = StreamKind::comm;
    c.kind = StepOpKind::ep_dispatch;
    c.duration = Time::ms(10);
    c.demand.hbm_bytes = 10e9;
    c.load = g.add_shape({{0, 0.1e9}});
    const int b = g.add(c);
    const StepTimeline t = execute_step(g);
    const double expect = heavy ? 0.010 * 3.5 / 3.0 : 0.010;
    CHECK(t.end[a].seconds() == doctest::Approx(expect).epsilon(1e-9));
    CHECK(t.end[b].seconds() == doctest::Approx(expect).epsilon(1e-9));
  }
}

namespace {

// A communication op of `kind` on `device`: a pipeline send goes to device 0.
StepOp comm_op(int device, StepOpKind kind, Time duration) {
  StepOp c;
  c.device = device;
  c.stream = kind == StepOpKind::pp_send ? StreamKind::p2p : StreamKind::comm;
  c.kind = kind;
  c.peer = kind == StepOpKind::pp_send ? 0 : -1;
  c.duration = duration;
  return c;
}

// One GPU's compute op of 10 ms, 8 of them compute-bound (stretched as 1/SMs, or in waves of a
// persistent grid), beside a communication op on device `comm_device` of 4 ms holding `held`
// SMs; 132 SMs, `reserved` of them left to communication by the compute kernels; a kernel
// launched beside the compute waits `wait` s for a persistent kernel. Returns the ends of both.
std::pair<double, double> beside_comm(int reserved, int held, StepOpKind kind, int comm_device = 0,
                                      bool persistent = false, double wait = 0.0) {
  StepGraph g = devices(2);
  g.hbm_capacity = 3e12;
  g.compute_shape = g.add_shape({});
  g.sms = 132;
  g.sms_reserved = reserved;
  StepOp k;
  k.stream = StreamKind::compute;
  k.duration = Time::ms(10);
  (persistent ? k.demand.sm_persistent_s : k.demand.sm_scaled_s) = 0.008;
  k.demand.persistent_wait_s = wait;
  k.load = g.compute_shape;
  const int a = g.add(k);
  StepOp c = comm_op(comm_device, kind, Time::ms(4));
  c.demand.sms = held;
  const int b = g.add(c);
  const StepTimeline t = execute_step(g);
  return {t.end[a].seconds(), t.end[b].seconds()};
}

}  // namespace

TEST_CASE("Communication kernels take their SMs from the compute op they overlap") {
  // All 132 SMs to compute; a reduce-scatter's 16 CTAs leave s = 116 of s0 = 132: speed
  // b = 10 / (10 + 8·(132/116 − 1)) for its 4 ms, then full speed for the rest.
  const double b = 10.0 / (10.0 + 8.0 * (132.0 / 116.0 - 1.0));
  auto [compute, comm] = beside_comm(0, 16, StepOpKind::dp_grads);
  CHECK(compute == doctest::Approx(1e-3 * (4.0 + (10.0 - 4.0 * b))).epsilon(1e-9));
  CHECK(comm == doctest::Approx(0.004).epsilon(1e-9));  // communication keeps its own time
  // Compute timed on 112 SMs, 20 left to communication: DeepEP's 20 SMs fit in them.
  std::tie(compute, comm) = beside_comm(20, 20, StepOpKind::ep_dispatch);
  CHECK(compute == doctest::Approx(0.010).epsilon(1e-9));
  // 36 held of the 20 left: compute has 96 of its 112.
  const double b36 = 10.0 / (10.0 + 8.0 * (112.0 / 96.0 - 1.0));
  std::tie(compute, comm) = beside_comm(20, 36, StepOpKind::ep_dispatch);
  CHECK(compute == doctest::Approx(1e-3 * (4.0 + (10.0 - 4.0 * b36))).epsilon(1e-9));
  // A pipeline send from device 1 holds its channels on its receiver (device 0) too.
  const double b2 = 10.0 / (10.0 + 8.0 * (132.0 / 130.0 - 1.0));
  std::tie(compute, comm) = beside_comm(0, 2, StepOpKind::pp_send, 1);
  CHECK(compute == doctest::Approx(1e-3 * (4.0 + (10.0 - 4.0 * b2))).epsilon(1e-9));
  // A collective on another device leaves this one's SMs alone.
  std::tie(compute, comm) = beside_comm(0, 16, StepOpKind::dp_grads, 1);
  CHECK(compute == doctest::Approx(0.010).epsilon(1e-9));
}

TEST_CASE("A persistent grid's waiting CTAs run as a second wave; a kernel waits for its end") {
  // Compute on 112 SMs (20 left); 36 held leave 96: the grid of 112 CTAs runs in two waves, its
  // 8 ms twice over: b = 10 / (10 + 8·(2 − 1)).
  const double b = 10.0 / 18.0;
  auto [compute, comm] = beside_comm(20, 36, StepOpKind::ep_dispatch, 0, true);
  CHECK(compute == doctest::Approx(1e-3 * (4.0 + (10.0 - 4.0 * b))).epsilon(1e-9));
  CHECK(comm == doctest::Approx(0.004).epsilon(1e-9));
  // The exchange's CTAs wait 1 ms for the running persistent GEMM to end, then hold their SMs.
  std::tie(compute, comm) = beside_comm(20, 36, StepOpKind::ep_dispatch, 0, true, 0.001);
  CHECK(comm == doctest::Approx(0.005).epsilon(1e-9));
  CHECK(compute == doctest::Approx(1e-3 * (5.0 + (10.0 - 1.0 - 4.0 * b))).epsilon(1e-9));
  // Within the SMs the compute leaves, it neither waits nor slows the compute.
  std::tie(compute, comm) = beside_comm(20, 20, StepOpKind::ep_dispatch, 0, true, 0.001);
  CHECK(comm == doctest::Approx(0.004).epsilon(1e-9));
  CHECK(compute == doctest::Approx(0.010).epsilon(1e-9));
}

namespace {

// A compute op of 10 ms, 8 of them compute-bound, on device 0 from t = 0, beside a communication
// op of `comm_ms` on device `comm_device` crossing link 2, on a GPU whose communication kernels
// take 1.5x their time beside compute-bound kernels and 1.25x beside memory-bound ones. Returns
// the ends of both.
std::pair<double, double> comm_beside_compute(double comm_ms, int comm_device = 0,
                                              StepOpKind kind = StepOpKind::ep_dispatch) {
  StepGraph g = devices(2);
  g.hbm_capacity = 3e12;
  g.compute_shape = g.add_shape({});
  g.comm_beside_compute_bound = 1.5;
  g.comm_beside_memory_bound = 1.25;
  StepOp k;
  k.stream = StreamKind::compute;
  k.duration = Time::ms(10);
  k.demand.sm_scaled_s = 0.008;
  k.load = g.compute_shape;
  const int a = g.add(k);
  StepOp c = comm_op(comm_device, kind, Time::from_seconds(comm_ms * 1e-3));
  c.load = g.add_shape({{2, 0.1e9}});
  const int b = g.add(c);
  const StepTimeline t = execute_step(g);
  return {t.end[a].seconds(), t.end[b].seconds()};
}

}  // namespace

TEST_CASE("Communication beside compute runs at 1 / f, f blended by the compute-bound share") {
  // f = 0.8·1.5 + 0.2·1.25 = 1.45 while the compute runs: 4 ms of exchange take 5.8 ms.
  const double f = 0.8 * 1.5 + 0.2 * 1.25;
  auto [compute, comm] = comm_beside_compute(4.0);
  CHECK(comm == doctest::Approx(0.004 * f).epsilon(1e-9));
  CHECK(compute == doctest::Approx(0.010).epsilon(1e-9));  // the compute keeps its time
  // 12 ms of exchange: 10/f of it beside the compute, the rest alone after it.
  std::tie(compute, comm) = comm_beside_compute(12.0);
  CHECK(comm == doctest::Approx(0.010 + (0.012 - 0.010 / f)).epsilon(1e-9));
  // A pipeline send from device 1 runs its kernels on its receiver (device 0) too.
  std::tie(compute, comm) = comm_beside_compute(4.0, 1, StepOpKind::pp_send);
  CHECK(comm == doctest::Approx(0.004 * f).epsilon(1e-9));
  // An exchange on a GPU with no compute beside it keeps its time.
  std::tie(compute, comm) = comm_beside_compute(4.0, 1);
  CHECK(comm == doctest::Approx(0.004).epsilon(1e-9));
}
