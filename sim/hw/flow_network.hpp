// Data transfers over the topology, on the discrete-event engine, at two fidelities.
//
// analytic: a transfer of S bytes on route R takes latency(R) + S / min_{l in R} bandwidth(l),
//   whatever else is in flight.
// flow: concurrent transfers share links max-min fairly (as in SimGrid's network model). A flow
//   first waits its route's latency, then joins the links of its route: one variable of the max-min
//   system (engine/maxmin.hpp) per flow, one constraint per link it crosses (its bandwidth), x_f
//   its rate in bytes/s. The result: no link above capacity, and no flow can go faster without
//   slowing one that is no faster than it. Rates change only when a flow joins or leaves; then only
//   the connected component of links and flows reachable from the changed links is re-solved, once
//   per instant (all changes at the same simulated time are batched). Flows that would finish
//   within kFinishTolerance of each other finish together, so symmetric transfers cost one
//   re-solve, not one each; the flows joining or leaving at one instant share one simulator
//   event (a bucket, below), so they cost one event, not one each.
// A flow may stand for `multiplicity` identical transfers on equivalent routes (a bundle): it is
// simulated once, on the links of its representative route. Its siblings' own GPU, NIC and access
// links are not tracked, but the leaf-spine links they share are: there the flow consumes
// `core_weight` per byte/s (element a_fl = core_weight), and on the aggregation links of a clos3
// `agg_weight`, so the bundle's load on shared uplinks is the load of all its members.
// A flow's FlowShare sets its variable's weight (a flow of weight k gets k shares where it
// contends, as a connection striped over k queue pairs does under per-queue-pair fairness) and a
// rate bound (bytes/s it cannot exceed whatever the links leave it, e.g. an endpoint's injection
// rate); the default is one share, unbounded.
// Lumped spines. A bundle spread over the spines (Topology::route) puts the share w_s of its rate
// x_f on its leaf's uplink to spine s: that uplink's row reads Σ_f a_f·w_{f,s}·x_f <= C_s. When
// every flow that crosses one leaf's uplinks spreads with the same w, their rows are one row
// scaled, Σ_f a_f·x_f <= C_s / w_s, and only the smallest right-hand side can bind: the uplinks
// are one constraint of capacity min_s C_s / w_s with a_f per flow; the same for the downlinks
// into a leaf. Same feasible set, same max-min point, one element where there were S. Exact only
// under that promise, which the caller makes per group of links (`lumped`: the spread that all of
// a group's flows take); a flow that breaks it is an internal error. link_rate() gives a lumped
// link its share: w_s times its lump's usage.
// Grouped spreads. Where a leaf's links carry flows spread in several ways (no lump), each way
// (the run of links and their shares w_s) is one group of the max-min system (engine/maxmin.hpp):
// a flow joins it with one element a_f, which is a_f·w_s on each link's own constraint. The rows
// are the expanded ones, so the solution is too; one element a flow where there were up to 32.
// Links in series. A one-port NIC's link from its GPU and its link to its leaf carry exactly the
// same flows, alike (Topology::series_next; the same for the leaf's link to the NIC and the NIC's
// to the GPU): their rows are one row with two capacities, so they are one constraint of the
// smaller. Exact; a route that would break it is an internal error.
// Link utilization: bytes carried per link over the run, for reports.
// Not modelled: packets, congestion control, incast buffers, per-hop store-and-forward.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/engine/chunked_vector.hpp"
#include "sim/engine/int_table.hpp"
#include "sim/engine/maxmin.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::hw {

enum class Fidelity { analytic, flow };

struct FlowShare {
  double weight = 1.0;
  double bound = engine::MaxMinSystem::kUnbounded;  // bytes/s
};

// A transfer of `bytes` from GPU `src` to GPU `dst`. It stands for `multiplicity` alike ones
// (bundled), loads the core (leaf-spine) and aggregation links `core_weight` and `agg_weight`
// times its bytes, and stands for `steps` back-to-back steps, paying its route's latency, plus
// `step_overhead_s` (a protocol's synchronisation), that many times; `share` is its max-min
// weight and rate bound.
struct FlowRequest {
  int src = 0, dst = 0;
  double bytes = 0.0;
  double multiplicity = 1.0;
  double core_weight = 1.0, agg_weight = 1.0;
  double steps = 1.0, step_overhead_s = 0.0;
  FlowShare share{};
  // Spread over spines (Topology::route), or empty: read by start(), and from the listener's
  // answer when the flow joins its links (FlowListener::request).
  std::span<const double> spread = {};
};

class FlowListener {
 public:
  virtual void on_flow_done(engine::Simulator& sim, std::uint64_t tag) = 0;
  // Asked once, when the flow of `tag` joins its links (flow fidelity, bytes > 0, a route with
  // links): its src, dst, spread, core_weight, agg_weight and share, as it was started with (only
  // these are read; a different answer goes undetected, its wait having been timed from start()'s
  // route). A waiting flow keeps its bytes, listener and tag, not these, which its caller holds
  // anyway (a plan's transfers; a world all-to-all's 135,032 flows all wait at once). So a tag
  // must name one waiting flow of its listener until then (it may be reused after), the spread
  // must point into storage the listener keeps, and the answer must not call into the network.
  virtual FlowRequest request(std::uint64_t tag) const = 0;

 protected:
  ~FlowListener() = default;
};

class FlowNetwork final : public engine::EventHandler {
 public:
  static constexpr engine::Time kFinishTolerance = engine::Time::ns(1);

  // The group of leaf-spine links that `link` (one of them) belongs to: its leaf's uplinks or the
  // downlinks into its leaf.
  static int lump_key(const Topology& topo, int link);
  // By lump_key: the spread that every flow crossing the group takes (it must outlive the network).
  using Lumps = std::unordered_map<int, std::span<const double>>;

  // `lumped`: the groups of links to lump, the caller's promise (see above); by default none.
  // `group_spreads`: spreads join the system's groups (above); false: every link of a spread is an
  // element of its own (the same solution; the reference the tests compare against).
  FlowNetwork(engine::Simulator& sim, const Topology& topo, Fidelity fidelity, Lumps lumped = {},
              bool group_spreads = true);

  // Starts the flow now; calls listener->on_flow_done(sim, tag) on delivery (and, in between,
  // listener->request(tag) at most once: see FlowListener).
  void start(const FlowRequest& flow, FlowListener* listener, std::uint64_t tag);

  std::size_t active_flows() const { return active_; }
  // Entries waiting in the buckets of activations and completions, stale ones included (what the
  // completions hold in memory; see below).
  std::size_t queued() const { return queued_; }
  // Elements the max-min system's pool holds (engine::MaxMinSystem::pool_elements).
  std::size_t elements() const { return system_.pool_elements(); }
  // Bytes it carries, counted when a transfer joins it (flow fidelity) or starts (analytic).
  double link_bytes(int link) const;
  // Sum of the current rates of the flows on a link (flow fidelity), bytes/s.
  double link_rate(int link) const;
  // (tag, rate in bytes/s) of every flow sharing links now, in no particular order.
  std::vector<std::pair<std::uint64_t, double>> flow_rates() const;
  Fidelity fidelity() const { return fidelity_; }

  void on_event(engine::Simulator& sim, std::uint64_t tag) override;

 private:
  // Per-flow storage is fixed-size (nothing allocated per flow): a waiting flow keeps its bytes,
  // listener and tag; when it joins the system its request is asked again of its listener and its
  // route walked again (routes are deterministic), and the system's elements hold its links from
  // then on.
  // 40 bytes (a world all-to-all holds 135,032 at once): in use while it has a listener.
  struct Flow {
    double remaining = 0.0;  // bytes
    engine::Time updated;    // when `remaining` was last brought up to date
    FlowListener* listener = nullptr;
    std::uint64_t tag = 0;
    int var = -1;  // its variable in the system while it shares links
    // The generation of its latest completion entry (see the buckets below), counted on across
    // the lives of its id, and whether that entry is live.
    std::uint32_t due : 31 = 0;
    std::uint32_t queued : 1 = 0;
  };
  static_assert(sizeof(Flow) == 40);
  static constexpr std::uint32_t kMaxGen = (std::uint32_t{1} << 31) - 1;
  enum EventKind : std::uint64_t { kFinish = 1, kRecompute = 2, kDue = 3 };
  static std::uint64_t tag_of(int flow, EventKind k) {
    return (static_cast<std::uint64_t>(flow) << 2) | k;
  }

  // Consumption of the i-th link of a route per byte/s of a flow with these weights.
  double weight(double core_weight, double agg_weight, const Route& r, std::size_t i) const;
  // The fields a flow's links are joined by (as start() gets them and request() gives them back).
  static void check_path(const FlowRequest& q);
  int allocate();
  void activate(int f);
  void finish(int f);
  void request_solve();
  void recompute();
  void progress(Flow& fl, double rate);  // `remaining` brought to now at `rate`
  void reschedule(int f);
  // Puts the flow's activation (generation 0) or completion in the bucket of instant `at`.
  void enqueue(int f, engine::Time at, std::uint32_t gen);
  void fire(int bucket);
  void drop_stale();

  engine::Simulator& sim_;
  const Topology& topo_;
  Fidelity fidelity_;
  // The lump constraint that the i-th link of the flow's route joins by (made when a flow first
  // crosses it; the promise checked), or -1: its own.
  int lump_of(const FlowRequest& q, const Route& r, std::size_t i);
  bool group_spreads_;
  Lumps lumped_;
  std::unordered_map<int, int> lumps_;  // by lump_key: its constraint
  // The system's group for links [begin, end) of the route (one leaf's uplinks or downlinks, a
  // spread's run), made when a flow first crosses them so: by (link, share) over the run.
  int group_of(const Route& r, std::size_t begin, std::size_t end);
  struct SharesHash {
    std::size_t operator()(const std::vector<std::pair<int, double>>& k) const;
  };
  std::unordered_map<std::vector<std::pair<int, double>>, int, SharesHash> groups_;
  std::vector<std::pair<int, double>> group_key_;  // scratch
  std::vector<int> entry_group_;                   // scratch: group_of() per link of the route
  std::vector<int> entry_lump_;  // scratch: lump_of() per link of the route being walked
  std::vector<char> in_series_;  // scratch: whether it is in series with the link before

  engine::MaxMinSystem system_;
  Route route_;  // scratch: the route being walked
  // Per topology link a flow has crossed (sparse: a network lives for one collective, which
  // touches few of a large cluster's links): its constraint (-1 until a flow joins on it; the
  // link before it's when the two are in series) and the bytes it carried.
  struct Crossed {
    double bytes = 0.0;
    double share = 0.0;
    int constraint = -1;
    int lump = -1;  // or its lump's constraint, of which it carries `share`
  };
  engine::IntTable<Crossed> crossed_;
  engine::ChunkedVector<Flow> flows_;
  std::vector<int> free_;
  std::vector<int> flow_of_var_;
  // Activations (generation 0) and completions of flows sharing links. The flows due at one
  // instant wait in one bucket under one event, in the order they were scheduled, so a re-solve
  // that moves a hundred thousand flows to the same instant costs one event, not a hundred
  // thousand cancelled and pushed. A moved flow leaves its old entry behind, stale (its
  // generation no longer the flow's); stale entries are skipped when their bucket fires and
  // dropped when they pass twice the flows sharing links plus 4,096. A flow's generation goes on
  // counting when its id is reused; before it wraps, every stale entry is dropped, so no stale
  // entry can ever match. One bucket's event runs where its first entry's would have: a flow put
  // in later runs before events scheduled between the two at the same instant (their order among
  // themselves is kept).
  struct Due {
    int flow = 0;
    std::uint32_t gen = 0;
  };
  bool current(const Due& d) const;  // whether the entry is its flow's live completion
  struct Bucket {
    engine::Time at;
    engine::EventId event;
    std::vector<Due> flows;
    bool live = false;
  };
  void put(Bucket& b, Due d);  // an entry into the bucket, counted in queued_
  std::vector<Bucket> buckets_;
  std::vector<int> free_buckets_;
  std::unordered_map<std::int64_t, int> bucket_at_;  // by picosecond: its bucket
  int last_bucket_ = -1;                             // the last one a flow was put in
  // Scratch: the entries of the firing bucket. Its array, once they ran, serves the next bucket
  // that outgrows kKeptEntries (put): a re-solve moves a hundred thousand flows into one or two
  // buckets, whose arrays, grown by doubling, took fresh memory at every re-solve. A fired
  // bucket keeps the array firing_ held before, for its next use, rather than give it back (on
  // the 512-GPU all-to-all with every flow, 54 fewer mappings and the same peak, 99 MiB).
  std::vector<Due> firing_;
  // Entries an emptied bucket's array keeps between uses; a larger array is given back.
  static constexpr std::size_t kKeptEntries = 4096;
  std::size_t stale_ = 0, queued_ = 0;
  bool recompute_pending_ = false;
  std::size_t active_ = 0;
};

}  // namespace stepsim::hw
