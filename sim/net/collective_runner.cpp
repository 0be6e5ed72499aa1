#include "sim/net/collective_runner.hpp"

#include "sim/engine/check.hpp"

namespace stepsim::net {

using engine::Time;

double bus_factor(CollectiveOp op, int n) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
    case CollectiveOp::dispatch:
    case CollectiveOp::combine:
      return static_cast<double>(n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::p2p:
      return 1.0;
  }
  return 1.0;
}

namespace {

struct Countdown final : hw::FlowListener {
  std::size_t outstanding = 0;
  void on_flow_done(engine::Simulator&, std::uint64_t) override {
    STEPSIM_CHECK(outstanding > 0, "more completions than flows");
    --outstanding;
  }
};

}  // namespace

CollectiveResult run_collective(const CollectivePlan& plan, double bytes, int group_size,
                                const hw::Topology& topo, hw::Fidelity fidelity,
                                const engine::RunControl* control) {
  CollectiveResult r;
  r.op = plan.op;
  r.algorithm = plan.algorithm;
  r.bytes = bytes;
  r.group_size = group_size;
  std::vector<double> link_bytes(topo.links().size(), 0.0);
  const int senders = plan.op == CollectiveOp::p2p ? 1 : group_size;  // a p2p has one sender
  for (const Phase& p : plan.phases) {
    engine::Simulator sim;
    hw::FlowNetwork net(sim, topo, fidelity);
    Countdown c;
    c.outstanding = p.transfers.size();
    std::uint64_t tag = 0;
    for (const Transfer& t : p.transfers)
      net.start(t.src, t.dst, t.bytes, &c, tag++, t.multiplicity, t.core_weight);
    engine::RunLimits limits;
    limits.control = control;
    const auto stats = sim.run(limits);
    engine::require_finished(
        stats, c.outstanding ? std::vector<std::string>{p.name + ": transfers undelivered"}
                             : std::vector<std::string>{});
    PhaseTiming pt{p.name, sim.now(), p.repeat};
    const double pt_s = pt.time().seconds();
    for (const Transfer& t : p.transfers)
      pt.sent_per_gpu += t.bytes * t.multiplicity * p.payload_steps();
    pt.sent_per_gpu /= senders;
    pt.busbw = pt_s > 0.0 ? pt.sent_per_gpu / pt_s : 0.0;
    for (std::size_t l = 0; l < link_bytes.size(); ++l) {
      const double b = net.link_bytes()[l] * p.payload_steps();
      link_bytes[l] += b;
      const double u = pt_s > 0.0 && b > 0.0 ? b / (topo.links()[l].bandwidth * pt_s) : 0.0;
      if (u > pt.bottleneck_utilization) {
        pt.bottleneck_utilization = u;
        pt.bottleneck = topo.links()[l].cls;
      }
    }
    r.phases.push_back(pt);
    r.time += pt.time();
    r.events += stats.events;
    r.flows += p.transfers.size();
  }
  const double t = r.time.seconds();
  if (t > 0.0) {
    r.algbw = bytes / t;
    r.busbw = r.algbw * bus_factor(plan.op, group_size);
  }
  for (std::size_t l = 0; l < link_bytes.size(); ++l) {
    const hw::Link& link = topo.links()[l];
    if (link_bytes[l] <= 0.0) continue;
    const double u = t > 0.0 ? link_bytes[l] / (link.bandwidth * t) : 0.0;
    if (u > r.bottleneck_utilization) {
      r.bottleneck_utilization = u;
      r.bottleneck = link.cls;
    }
  }
  // Bytes per link class over all transfers, bundles counted with their multiplicity. A byte
  // leaves a GPU once per NIC it is sent from (GPU -> NIC) and once per NVLink port it leaves by.
  double ib = 0.0, nvl = 0.0;
  for (const Phase& p : plan.phases)
    for (const Transfer& tr : p.transfers)
      for (int link : topo.route(tr.src, tr.dst).links) {
        const hw::Link& k = topo.links()[link];
        const bool leaves_gpu =
            (k.cls == hw::LinkClass::nic || k.cls == hw::LinkClass::nvlink) && topo.is_gpu(k.from);
        if (!leaves_gpu) continue;
        (k.cls == hw::LinkClass::nic ? ib : nvl) += tr.bytes * tr.multiplicity * p.payload_steps();
      }
  r.ib_bytes_per_gpu = ib / senders;
  r.nvlink_bytes_per_gpu = nvl / senders;
  return r;
}

}  // namespace stepsim::net
