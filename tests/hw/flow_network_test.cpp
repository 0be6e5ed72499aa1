#include "sim/hw/flow_network.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <map>

#include "sim/engine/check.hpp"
#include "tests/hw/flow_listeners.hpp"

using namespace stepsim;
using namespace stepsim::hw;
using namespace stepsim::spec;
using engine::Time;

namespace {

ClusterSpec two_nodes() {
  ClusterSpec c;
  c.name = "test";
  c.nodes = 2;
  c.gpus_per_node = 4;
  c.nvlink = {100e9, 100e9, 2e-6};
  c.fabric.kind = FabricKind::multi_plane_fat_tree;
  c.fabric.planes = 4;
  c.fabric.switch_ports = 8;
  c.fabric.nic = {25e9, 25e9, 4e-6};
  return c;
}

using Finished = test::Deliveries;

}  // namespace

TEST_CASE("Analytic: latency + bytes / bottleneck, independent of other transfers") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::analytic);
  Finished d;
  d.start(net, {0, 1, 1e9}, 1);  // NVLink: 2 us + 10 ms
  d.start(net, {2, 1, 1e9}, 2);  // shares GPU 1's port but analytic ignores that
  d.start(net, {0, 4, 1e9}, 3);  // NIC: 4 us + 40 ms
  sim.run();
  CHECK(d.at[1] == Time::us(2) + Time::ms(10));
  CHECK(d.at[2] == d.at[1]);
  CHECK(d.at[3] == Time::us(4) + Time::ms(40));
}

TEST_CASE("Flow: two flows into one port get half each") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  d.start(net, {0, 1, 1e9}, 1);
  d.start(net, {2, 1, 1e9}, 2);
  sim.run();
  // Both at 50 GB/s: 20 ms after the 2 us latency (rounded to the 1 ns finish grid).
  CHECK(d.at[1].seconds() == doctest::Approx(2e-6 + 0.02).epsilon(1e-6));
  CHECK(d.at[2] == d.at[1]);
}

TEST_CASE("Flow: a flow limited elsewhere leaves its share to the others") {
  ClusterSpec c = two_nodes();
  FaultSpec slow;
  slow.kind = FaultKind::nvlink_degrade;
  slow.gpu = 2;
  slow.factor = 0.25;  // GPU 2's own port: 25 GB/s
  c.faults.push_back(slow);
  const Topology t(c);
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  d.start(net, {0, 1, 0.75e9}, 1);  // gets 75 GB/s of GPU 1's 100
  d.start(net, {2, 1, 0.25e9}, 2);  // capped at 25 GB/s by its own port
  sim.run();
  CHECK(d.at[1].seconds() == doctest::Approx(2e-6 + 0.01).epsilon(1e-6));
  CHECK(d.at[2].seconds() == doctest::Approx(2e-6 + 0.01).epsilon(1e-6));
}

TEST_CASE("Flow: rates are recomputed when a flow leaves; bytes are conserved") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  d.start(net, {0, 1, 0.5e9}, 1);  // shares 100 GB/s with flow 2 until it ends at 10 ms
  d.start(net, {2, 1, 1.5e9}, 2);  // then runs alone: 0.5 GB in 10 ms, 1.0 GB more at 100 GB/s
  sim.run();
  CHECK(d.at[1].seconds() == doctest::Approx(2e-6 + 0.01).epsilon(1e-6));
  CHECK(d.at[2].seconds() == doctest::Approx(2e-6 + 0.02).epsilon(1e-6));
  double into_gpu1 = 0.0;
  for (std::size_t l = 0; l < t.links().size(); ++l)
    if (t.links()[l].to == t.links()[t.route(0, 1).links[1]].to)
      into_gpu1 += net.link_bytes(static_cast<int>(l));
  CHECK(into_gpu1 == doctest::Approx(2e9));
  CHECK(net.active_flows() == 0);
}

TEST_CASE("Flow: no link is ever above capacity under a random load") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  std::uint64_t tag = 0;
  for (int s = 0; s < 8; ++s)
    for (int r = 0; r < 8; ++r)
      if (s != r) d.start(net, {s, r, 1e6 * (1 + (s * 7 + r * 3) % 5)}, tag++);
  // Capacities hold after every event.
  std::size_t checks = 0;
  while (sim.pending() > 0) {
    engine::RunLimits one;
    one.max_events = 1;
    sim.run(one);
    for (std::size_t l = 0; l < t.links().size(); ++l) {
      REQUIRE(net.link_rate(static_cast<int>(l)) <= t.links()[l].bandwidth * (1 + 1e-9));
      ++checks;
    }
  }
  CHECK(checks > 0);
  CHECK(d.at.size() == 56);
  // No link carried its bytes faster than its bandwidth.
  for (std::size_t l = 0; l < t.links().size(); ++l)
    CHECK(sim.now().seconds() >= net.link_bytes(static_cast<int>(l)) / t.links()[l].bandwidth);
}

TEST_CASE(
    "Flow: a recomputation that leaves a flow's rate unchanged keeps its end; a later one changes "
    "it") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  d.start(net, {0, 1, 2.0e9},
          1);  // shares GPU 0's port with flow 3 and GPU 1's with flow 2: 50 GB/s
  d.start(net, {2, 1, 0.5e9}, 2);  // 50 GB/s, ends at 10 ms; flow 1 stays at 50 (GPU 0's port)
  d.start(net, {0, 3, 1.0e9}, 3);  // 50 GB/s, ends at 20 ms; flow 1 then runs at 100
  sim.run();
  CHECK(d.at[2].seconds() == doctest::Approx(2e-6 + 0.01).epsilon(1e-6));
  CHECK(d.at[3].seconds() == doctest::Approx(2e-6 + 0.02).epsilon(1e-6));
  CHECK(d.at[1].seconds() == doctest::Approx(2e-6 + 0.03).epsilon(1e-6));
}

TEST_CASE("Flow: rates are max-min fair after every event under a random load") {
  // Max-min fairness holds iff every flow has a bottleneck: a full link on which no flow is faster.
  ClusterSpec c = two_nodes();
  c.nodes = 4;
  c.fabric.nic = {25e9, 25e9, 4e-6};
  c.faults.push_back({FaultKind::nic_degrade, 1, 1, -1, -1, -1, -1, 0.3});  // uneven capacities
  const Topology t(c);
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  std::map<std::uint64_t, std::vector<int>> routes;
  std::uint64_t tag = 0, state = 12345;
  auto next = [&] {
    return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33;
  };
  for (int i = 0; i < 120; ++i) {
    const int src = static_cast<int>(next() % 16), dst = static_cast<int>(next() % 16);
    if (src == dst) continue;
    routes[tag] = t.route(src, dst).links;
    d.start(net, {src, dst, 1e6 * (1 + next() % 50)}, tag++);
  }
  std::size_t checked = 0;
  while (sim.pending() > 0) {
    // To the next instant, then everything at it (the recomputation follows the events that cause
    // it).
    engine::RunLimits one;
    one.max_events = 1;
    sim.run(one);
    engine::RunLimits instant;
    instant.until = sim.now();
    sim.run(instant);
    const auto rates = net.flow_rates();
    std::vector<double> fastest(t.links().size(), 0.0);
    for (const auto& [f, r] : rates)
      for (int l : routes[f]) fastest[l] = std::max(fastest[l], r);
    for (const auto& [f, r] : rates) {
      bool bottleneck = false;
      for (int l : routes[f])
        bottleneck |=
            net.link_rate(l) >= t.links()[l].bandwidth * (1 - 1e-9) && r >= fastest[l] * (1 - 1e-9);
      CHECK(bottleneck);
      ++checked;
    }
  }
  CHECK(checked > 1000);
  CHECK(d.at.size() == routes.size());
}

namespace {

// 32 nodes of 4 GPUs, each GPU's NIC on its own plane; 8-port switches: 4 nodes per leaf, 8
// leaves and 4 spines per plane. Plane 0's first leaves hold GPUs 0, 4, 8, 12 (leaf A), 16, 20..
// (B), 32.. (C), 48.. (D).
ClusterSpec eight_leaves() {
  ClusterSpec c = two_nodes();
  c.nodes = 32;
  return c;
}

// Every flow's finish time and the rate of every leaf-spine link 1 ms in, with `lumps`, spreads
// grouped or not.
struct LumpRun {
  std::map<std::uint64_t, Time> at;
  std::map<int, double> core_rates;
  std::size_t elements = 0;
};

LumpRun run_with(const Topology& t, const std::vector<FlowRequest>& flows, FlowNetwork::Lumps lumps,
                 bool grouped = true) {
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow, std::move(lumps), grouped);
  Finished d;
  for (std::size_t i = 0; i < flows.size(); ++i) d.start(net, flows[i], i);
  LumpRun out;
  engine::RunLimits until;
  until.until = Time::ms(1);
  sim.run(until);
  out.elements = net.elements();
  for (std::size_t l = 0; l < t.links().size(); ++l)
    if (t.links()[l].cls == LinkClass::ib_core)
      out.core_rates[static_cast<int>(l)] = net.link_rate(l);
  sim.run();
  out.at = d.at;
  return out;
}

// Every finish time and every leaf-spine link's rate of `other` as in `reference`, and some link
// busy (the case shares links).
void check_same_run(const Topology& t, const LumpRun& reference, const LumpRun& other,
                    std::size_t flows) {
  REQUIRE(reference.at.size() == flows);
  REQUIRE(other.at.size() == flows);
  for (std::size_t i = 0; i < flows; ++i) {
    CAPTURE(i);
    CHECK(other.at.at(i).seconds() == doctest::Approx(reference.at.at(i).seconds()).epsilon(1e-12));
  }
  double busy = 0.0;
  for (const auto& link_rate : reference.core_rates) {
    const int l = link_rate.first;  // (no structured binding: CAPTURE takes it into a lambda)
    const double rate = link_rate.second;
    CAPTURE(t.link_name(l));
    CHECK(other.core_rates.at(l) == doctest::Approx(rate).epsilon(1e-12));
    busy += rate;
  }
  CHECK(busy > 0.0);
}

}  // namespace

TEST_CASE(
    "Lumped spines: a group of links all of whose flows spread alike is one exact constraint") {
  const Topology t(eight_leaves());
  REQUIRE(t.spines_per_plane() == 4);
  // Uneven shares, the largest last: the lump's capacity is the least C_s / w_s, not the first.
  const std::vector<double> even{0.25, 0.25, 0.25, 0.25}, uneven{0.1, 0.2, 0.0, 0.7};
  // A -> B and A -> C spread evenly (core weights 1 to 3: bundles of several members); C -> D on
  // three spines, unevenly; one flow D -> C on its own path, so the downlinks into C carry an even
  // spread and a single path: mixed, never lumped. One flow has a rate bound.
  std::vector<FlowRequest> flows;
  for (int i = 0; i < 3; ++i) {
    FlowRequest q{4 * i, 16 + 4 * i, 3e8 * (i + 1), 1.0, 1.0 + i, 1.0};
    q.spread = even;
    flows.push_back(q);
    q.dst = 32 + 4 * i;
    q.bytes = 2e8;
    flows.push_back(q);
  }
  flows[1].share.bound = 2e9;
  for (int i = 0; i < 2; ++i) {
    FlowRequest q{32 + 4 * i, 48 + 4 * i, 4e8, 1.0, 2.0, 1.0};
    q.spread = uneven;
    flows.push_back(q);
  }
  flows.push_back({52, 40, 5e8});
  const auto key = [&](const FlowRequest& q, bool up) {
    Route r;
    t.route(q.src, q.dst, q.spread, r);
    for (std::size_t i = 0; i < r.links.size(); ++i)
      if (t.links()[r.links[i]].cls == LinkClass::ib_core) {
        const int k = FlowNetwork::lump_key(t, r.links[i]);
        if ((k % 2 == 0) == up) return k;
      }
    FAIL("no leaf-spine link");
    return -1;
  };
  FlowNetwork::Lumps lumps{{key(flows[0], true), even},
                           {key(flows[0], false), even},
                           {key(flows[6], true), uneven},
                           {key(flows[6], false), uneven}};
  REQUIRE(lumps.size() == 4);  // A's uplinks, B's downlinks, C's uplinks, D's downlinks
  REQUIRE_FALSE(lumps.contains(key(flows[1], false)));  // into C: mixed

  const LumpRun per_link = run_with(t, flows, {}, false), lumped = run_with(t, flows, lumps, false);
  check_same_run(t, per_link, lumped, flows.size());
  // Lumped: A -> B keeps 6 links of its own and 2 lumps, not 8 leaf-spine links.
  CHECK(lumped.elements < per_link.elements);
}

TEST_CASE("Lumped spines: a flow that would break the promise is an internal error") {
  const Topology t(eight_leaves());
  FlowRequest spread{0, 16, 1e8};
  const std::vector<double> even{0.25, 0.25, 0.25, 0.25};
  spread.spread = even;
  Route r;
  t.route(0, 16, even, r);
  int up = -1;
  for (int l : r.links)
    if (t.links()[l].cls == LinkClass::ib_core && up < 0) up = FlowNetwork::lump_key(t, l);
  // A's uplinks lumped for an even spread; a flow from A on one path, or on two spines, breaks it.
  for (const std::vector<double>& other : {std::vector<double>{}, {0.5, 0.5, 0.0, 0.0}}) {
    engine::Simulator sim;
    FlowNetwork net(sim, t, Fidelity::flow, {{up, even}});
    Finished d;
    d.start(net, spread, 1);
    FlowRequest q{4, 20, 1e8};
    q.spread = other;
    d.start(net, q, 2);
    CHECK_THROWS_AS(sim.run(), engine::InternalError);
  }
}

TEST_CASE(
    "Grouped spreads: links carrying several spreads give the per-link answer, one element a run") {
  const Topology t(eight_leaves());
  // From leaf A: an even spread to B, an uneven one to C, one over two spines to D (core weights 1
  // to 3, one with a rate bound), and a flow to D on one path; into B, a spread from C too. A's
  // uplinks and B's and D's downlinks carry mixed spreads: nothing can be lumped.
  const std::vector<double> even{0.25, 0.25, 0.25, 0.25}, uneven{0.1, 0.2, 0.0, 0.7},
      two{0.5, 0.5, 0.0, 0.0};
  std::vector<FlowRequest> flows;
  for (int i = 0; i < 3; ++i) {
    FlowRequest q{4 * i, 16 + 4 * i, 3e8 * (i + 1), 1.0, 1.0 + i, 1.0};
    q.spread = even;
    flows.push_back(q);
    q.dst = 32 + 4 * i;
    q.spread = uneven;
    flows.push_back(q);
    q.dst = 48 + 4 * i;
    q.spread = two;
    q.bytes = 2e8;
    flows.push_back(q);
  }
  flows[2].share.bound = 1e9;
  flows.push_back({12, 60, 5e8});
  FlowRequest from_c{36, 28, 4e8, 1.0, 2.0, 1.0};
  from_c.spread = uneven;
  flows.push_back(from_c);

  const LumpRun per_link = run_with(t, flows, {}, false), grouped = run_with(t, flows, {}, true);
  check_same_run(t, per_link, grouped, flows.size());
  // An even spread over 4 spines held 8 leaf-spine elements; grouped, 2.
  CHECK(grouped.elements < per_link.elements);
}

TEST_CASE("Flow: transfers due at one instant share one event, in the order they were started") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  struct Order final : test::RequestKeeper {
    std::vector<std::uint64_t> tags;
    std::vector<Time> at;
    void on_flow_done(engine::Simulator& s, std::uint64_t tag) override {
      tags.push_back(tag);
      at.push_back(s.now());
    }
  } done;
  // An all-to-all within each node, alike: all join at one instant, all end at one.
  std::vector<std::uint64_t> started;
  for (int s = 0; s < 8; ++s)
    for (int d = s / 4 * 4; d < s / 4 * 4 + 4; ++d)
      if (d != s) {
        started.push_back(static_cast<std::uint64_t>(10 * s + d));
        done.start(net, {s, d, 1e8}, started.back());
      }
  const engine::RunStats stats = sim.run();
  REQUIRE(done.tags.size() == 24);
  CHECK(done.tags == started);
  for (const Time& a : done.at) CHECK(a == done.at.front());
  // One event joins them, one re-solves, one ends them, one re-solves the empty fabric: far
  // fewer than the 48 a transfer's own joining and ending would take.
  CHECK(stats.events <= 4);
  CHECK(net.queued() == 0);
}

TEST_CASE("Flow: a transfer moved again and again leaves no growing trail of stale completions") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  // One long transfer from GPU 0 to GPU 1 shares GPU 1's port with 30,000 short ones from GPU 2,
  // started one after another: each joining and each leaving moves the long one's end.
  struct Chain final : test::RequestKeeper {
    FlowNetwork* net = nullptr;
    int left = 30'000;
    std::size_t most_queued = 0;
    Time long_done;
    void on_flow_done(engine::Simulator& s, std::uint64_t tag) override {
      most_queued = std::max(most_queued, net->queued());
      if (tag == 0) long_done = s.now();
      if (tag == 1 && --left > 0) start(*net, {2, 1, 1e5}, 1);
    }
  } chain;
  chain.net = &net;
  chain.start(net, {0, 1, 1e11}, 0);
  chain.start(net, {2, 1, 1e5}, 1);
  sim.run();
  CHECK(chain.left == 0);
  // The stale entries are dropped once they pass twice the live ones plus 4,096.
  CHECK(chain.most_queued <= 4096 + 8);
  CHECK(net.queued() == 0);
  // GPU 1's 100 GB/s port is full all along: the long one ends when the port has carried its
  // bytes and all the short ones' (they end long before), after its 2 us of latency; a stale
  // entry taken for a live one would end it early.
  CHECK(chain.long_done.seconds() ==
        doctest::Approx((1e11 + 30'000 * 1e5) / 100e9 + 2e-6).epsilon(1e-4));
}

TEST_CASE("A waiting flow asks its listener for its request once, when it joins its links") {
  const Topology t(two_nodes());
  struct Asked final : test::RequestKeeper {
    const engine::Simulator* sim = nullptr;
    mutable std::map<std::uint64_t, std::vector<Time>> asked;  // the instants it was asked at
    std::map<std::uint64_t, Time> at;
    hw::FlowRequest request(std::uint64_t tag) const override {
      asked[tag].push_back(sim->now());
      return RequestKeeper::request(tag);
    }
    void on_flow_done(engine::Simulator& s, std::uint64_t tag) override { at[tag] = s.now(); }
  };
  for (const Fidelity f : {Fidelity::flow, Fidelity::analytic}) {
    CAPTURE(static_cast<int>(f));
    engine::Simulator sim;
    FlowNetwork net(sim, t, f);
    Asked a;
    a.sim = &sim;
    a.start(net, {0, 1, 1e9}, 1);  // NVLink
    a.start(net, {2, 1, 1e9}, 2);  // shares GPU 1's port
    FlowRequest weighty{0, 4, 1e9};
    weighty.share = FlowShare{2.0, 10e9};  // 10 GB/s at most: 100 ms
    a.start(net, weighty, 3);
    a.start(net, {0, 5, 0.0}, 4);  // nothing to move: no links joined
    sim.run();
    REQUIRE(a.at.size() == 4);
    if (f == Fidelity::analytic) {
      CHECK(a.asked.empty());
      continue;
    }
    // The flows that join links, once each, when their route's latency has passed (NVLink 2 us,
    // the NIC route 4 us); what they get back is what they were started with: the third keeps
    // its bound.
    CHECK(a.asked == std::map<std::uint64_t, std::vector<Time>>{
                         {1, {Time::us(2)}}, {2, {Time::us(2)}}, {3, {Time::us(4)}}});
    CHECK(a.at[1] == a.at[2]);
    CHECK(a.at[3].seconds() == doctest::Approx(0.1 + 4e-6).epsilon(1e-6));
  }
}

TEST_CASE("Flow: a NIC's links in series are one constraint of the smaller, and both report it") {
  ClusterSpec c = two_nodes();
  const Topology t(c);
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  // GPUs 0 and 1 to GPU 4 of the other node, on GPU 0's plane: both leave by GPU 0's NIC (GPU 1
  // over NVLink first) and arrive by GPU 4's, 25 GB/s each.
  d.start(net, {0, 4, 1e9}, 1);
  d.start(net, {1, 4, 1e9}, 2);
  engine::RunLimits until;
  until.until = Time::ms(1);
  sim.run(until);
  const Route r = t.route(0, 4);
  int pairs = 0;
  for (std::size_t i = 0; i + 1 < r.links.size(); ++i)
    if (t.series_next(r.links[i]) == r.links[i + 1]) {
      ++pairs;
      CHECK(net.link_rate(r.links[i]) == doctest::Approx(25e9));
      CHECK(net.link_rate(r.links[i + 1]) == net.link_rate(r.links[i]));
    }
  CHECK(pairs == 2);
  sim.run();
  // 2 GB through 25 GB/s, after a few microseconds of latency.
  CHECK(d.at[1].seconds() == doctest::Approx(2e9 / 25e9).epsilon(1e-4));
  CHECK(d.at[2].seconds() == doctest::Approx(2e9 / 25e9).epsilon(1e-4));
}

TEST_CASE("Flow: every re-solve answers to the run's control (a signal, --max-wall)") {
  const Topology t(two_nodes());
  engine::Simulator sim;
  FlowNetwork net(sim, t, Fidelity::flow);
  Finished d;
  for (int s = 0; s < 4; ++s) d.start(net, {s, 4 + s, 1e9}, static_cast<std::uint64_t>(s));
  std::atomic<bool> stop{true};  // set before the first re-solve; a handful of events in all
  engine::RunControl control;
  control.interrupted = &stop;
  engine::RunLimits limits;
  limits.control = &control;
  CHECK_THROWS_AS(sim.run(limits), engine::Stopped);
  CHECK(d.at.empty());
}
