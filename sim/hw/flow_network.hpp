// Data transfers over the topology, on the discrete-event engine, at two fidelities.
//
// analytic: a transfer of S bytes on route R takes latency(R) + S / min_{l in R} bandwidth(l),
//   whatever else is in flight.
// flow: concurrent transfers share links max-min fairly (as in SimGrid's network model). A flow
//   first waits its route's latency, then joins the links of its route. Rates are the max-min fair
//   allocation computed by progressive filling: with c_l the capacity left on link l and n_l its
//   unfixed flows, repeatedly take the link with the smallest c_l / n_l, give that share to all its
//   unfixed flows, and subtract it from every link they cross. The result: no link above capacity,
//   and no flow can go faster without slowing one that is no faster than it.
//   Rates change only when a flow joins or leaves; then only the connected component of links and
//   flows reachable from the changed links is recomputed, once per instant (all changes at the same
//   simulated time are batched). Flows that would finish within kFinishTolerance of each other
//   finish together, so symmetric transfers cost one recomputation, not one each.
// A flow may stand for `multiplicity` identical transfers on equivalent routes (a bundle): it is
// simulated once, on the links of its representative route. Its siblings' own GPU, NIC and access
// links are not tracked, but the leaf-spine links they share are: there the flow counts
// `core_weight` times (weighted max-min: a link's share is its capacity over the summed weights of
// its unfixed flows, and a fixed flow takes weight x rate of every link it crosses), so the
// bundle's load on shared uplinks is the load of all its members.
// Link utilization: bytes carried per link over the run, for reports.
// Not modelled: packets, congestion control, incast buffers, per-hop store-and-forward.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::hw {

enum class Fidelity { analytic, flow };

class FlowListener {
 public:
  virtual void on_flow_done(engine::Simulator& sim, std::uint64_t tag) = 0;

 protected:
  ~FlowListener() = default;
};

class FlowNetwork final : public engine::EventHandler {
 public:
  static constexpr engine::Time kFinishTolerance = engine::Time::ns(1);

  FlowNetwork(engine::Simulator& sim, const Topology& topo, Fidelity fidelity);

  // Starts `bytes` from `src` to `dst` now; calls listener->on_flow_done(sim, tag) on delivery.
  // A transfer standing for `steps` back-to-back steps pays its route's latency, plus
  // `step_overhead_s` (a protocol's synchronisation), that many times.
  void start(int src_gpu, int dst_gpu, double bytes, FlowListener* listener, std::uint64_t tag,
             double multiplicity = 1.0, double core_weight = 1.0, double steps = 1.0,
             double step_overhead_s = 0.0);

  std::size_t active_flows() const { return active_; }
  std::uint64_t recomputations() const { return recomputations_; }
  const std::vector<double>& link_bytes() const { return link_bytes_; }
  // Sum of the current rates of the flows on a link (flow fidelity), bytes/s.
  double link_rate(int link) const;
  // (tag, rate in bytes/s) of every flow sharing links now, in no particular order.
  std::vector<std::pair<std::uint64_t, double>> flow_rates() const;
  Fidelity fidelity() const { return fidelity_; }

  void on_event(engine::Simulator& sim, std::uint64_t tag) override;

 private:
  struct Flow {
    std::vector<int> links;
    double remaining = 0.0;  // bytes
    double rate = 0.0;       // bytes/s
    double multiplicity = 1.0;
    double core_weight = 1.0;  // weight on ib_core links
    engine::Time updated;      // when `remaining` was last brought up to date
    engine::EventId done;
    FlowListener* listener = nullptr;
    std::uint64_t tag = 0;
    bool active = false;  // sharing links (after its latency)
    bool used = false;
  };
  enum EventKind : std::uint64_t { kActivate = 0, kFinish = 1, kRecompute = 2 };
  static std::uint64_t tag_of(int flow, EventKind k) {
    return (static_cast<std::uint64_t>(flow) << 2) | k;
  }

  double weight(const Flow& f, int link) const;
  int allocate();
  void activate(int f);
  void finish(int f);
  void mark_dirty(int link);
  void recompute();
  void progress(Flow& fl);
  void reschedule(int f);

  engine::Simulator& sim_;
  const Topology& topo_;
  Fidelity fidelity_;
  std::vector<Flow> flows_;
  std::vector<int> free_;
  std::vector<std::vector<int>> link_flows_;  // active flows per link
  std::vector<double> link_bytes_;
  std::vector<int> dirty_links_;
  std::vector<std::uint32_t> link_stamp_, flow_stamp_;
  std::vector<int> link_pos_;     // a link's position in the component being recomputed
  std::vector<double> old_rate_;  // per component flow, before the recomputation
  std::uint32_t stamp_ = 0;
  bool recompute_pending_ = false;
  std::size_t active_ = 0;
  std::uint64_t recomputations_ = 0;
};

}  // namespace stepsim::hw
