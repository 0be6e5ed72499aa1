#include "sim/net/collective_runner.hpp"

#include <algorithm>

#include "sim/engine/int_table.hpp"
#include "sim/net/transfer_dag.hpp"

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
    case CollectiveOp::send_recv:
      return 1.0;
  }
  return 1.0;
}

namespace {

// Bytes per link, summed in the order they are added (the same sums whatever the hash order),
// held per link crossed rather than per crossing: a collective of a million transfers crosses a
// few thousand links.
class LinkSums {
 public:
  void add(int link, double bytes) {
    std::size_t& at = index_[link];  // its place in sums_ plus one; 0 until first added
    if (at == 0) {
      sums_.emplace_back(link, bytes);
      at = sums_.size();
    } else {
      sums_[at - 1].second += bytes;
    }
  }
  // (link, bytes) in ascending link order.
  std::vector<std::pair<int, double>> sorted() const {
    std::vector<std::pair<int, double>> out = sums_;
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }

 private:
  engine::IntTable<std::size_t> index_;
  std::vector<std::pair<int, double>> sums_;
};

}  // namespace

Time collective_time(const CollectivePlan& plan, const hw::Topology& topo, hw::Fidelity fidelity,
                     const engine::RunControl* control) {
  return run_dag(plan, make_dag(plan, plan.chunks), topo, fidelity, control).end;
}

CollectiveResult run_collective(const CollectivePlan& plan, double bytes, int group_size,
                                const hw::Topology& topo, hw::Fidelity fidelity,
                                const engine::RunControl* control) {
  CollectiveResult r;
  r.op = plan.op;
  r.algorithm = plan.algorithm;
  r.bytes = bytes;
  r.group_size = group_size;
  // Bytes per link, sparse (the links the transfers cross, ascending), so that a collective costs
  // what its transfers do, not what the cluster's links do.
  LinkSums link_bytes;
  double ib = 0.0, nvl = 0.0;  // data bytes leaving GPUs by NIC and by NVLink, all transfers
  const int senders = plan.op == CollectiveOp::p2p ? 1 : group_size;  // a p2p has one sender
  const TransferDag dag = make_dag(plan, plan.chunks);
  const DagRun run = run_dag(plan, dag, topo, fidelity, control);
  r.time = run.end;
  r.events = run.events;
  r.chunks = dag.chunks;
  r.stream_chunks = plan.chunks;
  r.protocol = std::string(protocol_def(plan.protocol).name);
  r.channels = plan.channels;
  r.predicted_s = plan.predicted_s;
  for (std::size_t i = 0; i < dag.nodes.size(); ++i)
    r.nodes.push_back({dag.nodes[i].phase, run.start[i], run.finish[i]});
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const Phase& ph = plan.phases[p];
    // The phase's span: from its first chunk's start to its last chunk's delivery.
    Time first = Time::max(), last;
    for (std::size_t i = 0; i < dag.nodes.size(); ++i)
      if (dag.nodes[i].phase == static_cast<int>(p)) {
        first = std::min(first, run.start[i]);
        last = std::max(last, run.finish[i]);
      }
    PhaseTiming pt{ph.name, last - first, ph.repeat};
    const double pt_s = pt.elapsed.seconds();
    // Bytes per link as the flow network counts them: a bundle once, on its representative's
    // links, with its core weight on the leaf-spine ones.
    LinkSums phase_bytes;
    hw::Route route;
    for (const Transfer& t : ph.transfers) {
      const double data = t.bytes * t.payload * t.multiplicity * ph.payload_steps();
      pt.sent_per_gpu += data;
      route_of(topo, t, route);
      for (std::size_t i = 0; i < route.links.size(); ++i) {
        const hw::Link& k = topo.links()[route.links[i]];
        phase_bytes.add(route.links[i],
                        t.bytes * ph.payload_steps() * route.share_of(i) * t.weight_on(k.cls));
        // Data bytes per link class, bundles counted with their multiplicity: a byte leaves a
        // GPU once per NIC it is sent from (GPU -> NIC) and once per NVLink port it leaves by.
        if ((k.cls == hw::LinkClass::nic || k.cls == hw::LinkClass::nvlink) && topo.is_gpu(k.from))
          (k.cls == hw::LinkClass::nic ? ib : nvl) += data;
      }
    }
    pt.sent_per_gpu /= senders;
    pt.busbw = pt_s > 0.0 ? pt.sent_per_gpu / pt_s : 0.0;
    for (const auto& [l, b] : phase_bytes.sorted()) {
      link_bytes.add(l, b);
      const double u = pt_s > 0.0 && b > 0.0 ? b / (topo.links()[l].bandwidth * pt_s) : 0.0;
      if (u > pt.bottleneck_utilization) {
        pt.bottleneck_utilization = u;
        pt.bottleneck = hw::link_group(topo, l);
      }
    }
    r.phases.push_back(pt);
    r.flows += ph.transfers.size() * dag.chunks;
  }
  const double t = r.time.seconds();
  if (t > 0.0) {
    r.algbw = bytes / t;
    r.busbw = r.algbw * bus_factor(plan.op, group_size);
  }
  for (const auto& [l, b] : link_bytes.sorted()) {
    const hw::Link& link = topo.links()[l];
    if (b <= 0.0) continue;
    const double u = t > 0.0 ? b / (link.bandwidth * t) : 0.0;
    if (u > r.bottleneck_utilization) {
      r.bottleneck_utilization = u;
      r.bottleneck = hw::link_group(topo, l);
    }
  }
  r.ib_bytes_per_gpu = ib / senders;
  r.nvlink_bytes_per_gpu = nvl / senders;
  return r;
}

}  // namespace stepsim::net
