// The fabric (hw::FlowNetwork: transfers as flows) and the step executor (communication ops on
// the live fabric) are two clients of the one max-min system. Driven with the same random flow
// sets, they must give the same rates, and so the same completion times.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "sim/exec/step_executor.hpp"
#include "sim/hw/flow_network.hpp"
#include "tests/hw/flow_listeners.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;
using engine::Time;

namespace {

// Four nodes of four GPUs on a two-plane fat-tree of 4-port switches (two leaves and two spines
// per plane), with random rates, oversubscription and degraded links: routes share GPU ports,
// NICs, leaf uplinks and spines.
spec::ClusterSpec random_cluster(test::Rng& rng) {
  spec::ClusterSpec c;
  c.name = "random";
  c.nodes = 4;
  c.gpus_per_node = 4;
  const double nv = rng.uniform(50e9, 200e9), nic = rng.uniform(10e9, 50e9);
  c.nvlink = {nv, nv, 0.0};
  c.fabric.kind =
      rng.below(2) == 0 ? spec::FabricKind::multi_plane_fat_tree : spec::FabricKind::rail_fat_tree;
  c.fabric.planes = c.fabric.kind == spec::FabricKind::rail_fat_tree ? 1 : 2;
  c.fabric.switch_ports = 4;
  c.fabric.oversubscription = rng.below(2) == 0 ? 1.0 : 2.0;
  c.fabric.nic = {nic, nic, 0.0};
  for (int k = rng.below(3); k > 0; --k) {
    spec::FaultSpec f;
    f.factor = rng.uniform(0.2, 0.9);
    if (rng.below(2) == 0) {
      f.kind = spec::FaultKind::nic_degrade;
      f.node = rng.below(c.nodes);
      f.nic = rng.below(c.gpus_per_node);
    } else {
      f.kind = spec::FaultKind::nvlink_degrade;
      f.gpu = rng.below(c.world_size());
    }
    c.faults.push_back(f);
  }
  return c;
}

using Done = test::Deliveries;

}  // namespace

TEST_CASE("One solver: the fabric and the executor give the same rates on random flow sets") {
  int sets = 0, shared = 0, slowed = 0;
  for (int seed = 0; seed < 240; ++seed) {
    test::Rng rng(seed);
    const hw::Topology topo(random_cluster(rng));
    const auto& links = topo.links();
    engine::Simulator sim;
    hw::FlowNetwork net(sim, topo, hw::Fidelity::flow);
    Done done;

    // The executor's view: one op per flow, each on a device of its own, asking a·B of every link
    // of its route, where B is the flow's own rate (at most what its route allows alone).
    exec::StepGraph g;
    for (const hw::Link& l : links) g.link_capacity.push_back(l.bandwidth);
    const int n = 2 + rng.below(10);
    g.devices = n;
    g.streams.resize(n);
    std::vector<int> use(links.size(), 0);
    std::vector<double> alone_s;  // each flow's time at its own rate
    for (int f = 0; f < n; ++f) {
      int src = rng.below(16), dst = rng.below(15);
      if (dst >= src) ++dst;
      const double bytes = rng.uniform(1e6, 1e8);
      const double core = 1.0 + rng.below(3);
      const hw::Route r = topo.route(src, dst);
      std::vector<net::LinkLoad> load;
      double alone = INFINITY;
      for (int l : r.links) {
        const double a = links[l].cls == hw::LinkClass::ib_core ? core : 1.0;
        alone = std::min(alone, links[l].bandwidth / a);
        load.push_back({l, bytes * a});
        ++use[l];
      }
      std::sort(load.begin(), load.end(),
                [](const net::LinkLoad& x, const net::LinkLoad& y) { return x.link < y.link; });
      const double own = alone * rng.uniform(0.3, 1.0);  // B: the bound, and the weight
      hw::FlowRequest q{src, dst, bytes};
      q.core_weight = core;
      q.share = hw::FlowShare{own, own};
      done.start(net, q, static_cast<std::uint64_t>(f));
      exec::StepOp op;
      op.device = f;
      op.stream = workload::StreamKind::comm;
      op.kind = workload::StepOpKind::ep_dispatch;
      op.duration = Time::from_seconds(bytes / own);
      op.load = g.add_shape(std::move(load));
      g.add(std::move(op));
      alone_s.push_back(bytes / own);
    }
    sim.run();
    const exec::StepTimeline tl = exec::execute_step(g);

    ++sets;
    if (std::any_of(use.begin(), use.end(), [](int k) { return k > 1; })) ++shared;
    for (int f = 0; f < n; ++f) {
      const double fabric = done.at.at(static_cast<std::uint64_t>(f)).seconds();
      const double executor = tl.end[f].seconds();
      INFO("seed " << seed << ", flow " << f << " of " << n);
      // The fabric rounds each finish up to its 1 ns grid; nothing else may differ.
      CHECK(std::abs(fabric - executor) <= 1e-9 * (n + 1) + 1e-9 * executor);
      if (executor > alone_s[f] * (1 + 1e-6)) ++slowed;
    }
  }
  CHECK(sets >= 200);
  CHECK(shared >= 150);  // most sets share links
  CHECK(slowed >= 300);  // and many flows are slowed by the sharing
}
