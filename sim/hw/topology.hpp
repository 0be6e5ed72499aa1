// The cluster as a graph of devices and directed links, built from a ClusterSpec.
//
// Vertices: GPUs, one NVSwitch per node, one NIC per GPU, leaf and spine switches. Directed links
// (one per direction, each with its own bandwidth and latency):
//   nvlink     GPU <-> NVSwitch, the per-GPU NVLink bandwidth
//   nic        GPU <-> its NIC: the NIC port, at the NIC bandwidth
//   ib_access  NIC <-> leaf
//   ib_core    leaf <-> spine, bandwidth / oversubscription
//   ib_agg     spine <-> aggregation plane (clos3), a pod's share / pod_oversubscription
// Fabrics, with k-port switches (a leaf: k/2 ports down, k/2 up):
//   multi_plane_fat_tree: NIC i of every node on plane i; per plane L = ⌈nodes / (k/2)⌉ leaves and
//     ⌈L/2⌉ spines, every leaf linked to every spine with (k/2)/spines ports aggregated in one
//     link.
//   rail_fat_tree: one plane; the NICs of rail i (GPU i of every node) fill their own leaves;
//     spines as above over all leaves.
//   dual_plane: two planes, each built as a rail_fat_tree over every node; NIC i of a node has
//     one port (half its bandwidth) on rail i's leaf in each plane (ib_access per port), and
//     the uplink capacity follows from the port bandwidth.
//   clos3: one plane; every NIC of a node on its rack's leaf (k/2 NICs, k/2/g nodes); pods of
//     `leaves_per_pod` leaves, each leaf linked to each of its pod's k/2 spines at
//     NIC bandwidth / oversubscription (one uplink per spine); spine s of every pod linked to
//     aggregation plane s (one vertex per plane: its switches and their parallel links merged)
//     at the pod's leaf-spine capacity / (k/2 · pod_oversubscription).
// Routes are computed on demand in O(hops) from lookup tables, deterministically:
//   same node: GPU → NVSwitch → GPU.
//   other node: on a multi-plane or dual-plane fabric, traffic for a GPU of plane (rail) p
//   first crosses NVLink to the source node's GPU p (PXN, spec::FabricSpec::pxn), then
//   NIC → leaf [→ spine [→ aggregation → spine] → leaf] → NIC → GPU (the aggregation tier only
//   between pods of a clos3). On a dual-plane fabric the route forks at the NIC: half the bytes
//   go over each plane (HPN sends over both ports), and all of them over the one left when the
//   other plane's part is down (the surviving ToR takes the node's traffic, as the dual-ToR
//   design intends). Among spines, the destination picks: InfiniBand switches forward by
//   destination (linear forwarding tables), and OpenSM's fat-tree routing engine spreads a
//   leaf's destinations over its up-ports for a congestion-free "shift" pattern (NVIDIA,
//   MLNX_OFED "NVIDIA SM" manual: Fat-tree Routing Algorithm). With uplinks cabled round-robin
//   to the spines, the destination at port p of its leaf is reached through spine p mod spines,
//   from every leaf, and in a clos3 through the same spine index, and aggregation plane, in
//   every pod; down spines are skipped. Routes of layouts shifted by whole leaves' ports are
//   thus translations of one another. With `routing: ecmp_hash` a hash of the (source,
//   destination) GPU pair picks the spine index instead, as Ethernet ECMP does
//   (spec/cluster.hpp): flows may collide.
// A route that would cross a failed link falls back to a breadth-first search over the live
// links (GPUs may forward over NVLink); no path at all is a user error naming both GPUs
// (Unreachable).
// Not modelled: multi-path within one plane (adaptive routing), switch buffers, PCIe switches.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/engine/user_error.hpp"
#include "sim/spec/cluster.hpp"

namespace stepsim::hw {

// A route the failed links leave no path for: the job cannot run on this cluster (a stress
// campaign counts such a trial as one the job does not survive).
class Unreachable : public engine::UserError {
 public:
  using engine::UserError::UserError;
};

enum class VertexKind { gpu, nvswitch, nic, leaf, spine, agg };
enum class LinkClass { nvlink, nic, ib_access, ib_core, ib_agg };
inline constexpr int kVertexKinds = 6;
inline constexpr int kLinkClasses = 5;
std::string_view to_string(VertexKind k);
std::string_view to_string(LinkClass c);

struct Link {
  int from = 0, to = 0;  // vertex ids
  LinkClass cls = LinkClass::nvlink;
  int series_next = -1;    // Topology::series_next, held here where a route's walk reads it
  double bandwidth = 0.0;  // bytes/s
  double latency_s = 0.0;
  bool up = true;
  int series_prev = -1;  // Topology::series_prev
};
static_assert(sizeof(Link) == 40);

// A route: its links, and, on a dual-plane fabric, the share of the flow's bytes each carries
// (half on each plane's links while both are up; empty when every link carries all of them).
struct Route {
  std::vector<int> links;     // link ids in order
  double latency_s = 0.0;     // sum over the links (over one plane's when split)
  std::vector<double> share;  // per link, or empty: 1 for every link
  // Its leaf-spine links are a spread's (Topology::route): the source leaf's uplinks, then the
  // destination leaf's downlinks, to every spine with a share.
  bool spread = false;
  double share_of(std::size_t i) const { return share.empty() ? 1.0 : share[i]; }
};

class Topology {
 public:
  // Validates the spec and its faults; throws engine::UserError on an impossible one.
  explicit Topology(const spec::ClusterSpec& spec);
  // Memory the topology of `spec` will take, estimated from its vertex and link counts before
  // building it (bytes per GPU and per leaf-spine pair measured on this implementation).
  static double estimate_bytes(const spec::ClusterSpec& spec);

  const spec::ClusterSpec& spec() const { return spec_; }
  int gpus() const { return spec_.world_size(); }
  int node_of(int gpu) const { return gpu / spec_.gpus_per_node; }
  int local_of(int gpu) const { return gpu % spec_.gpus_per_node; }
  int planes() const { return planes_; }
  int leaves_per_plane() const { return leaves_per_plane_; }
  int spines_per_plane() const { return spines_per_plane_; }  // clos3: per pod
  int pods() const { return pods_; }
  // The pod of a (global) leaf: 0 but in a clos3.
  int pod_of_leaf(int leaf) const { return leaves_per_pod_ > 0 ? leaf / leaves_per_pod_ : 0; }

  const std::vector<Link>& links() const { return links_; }
  bool is_gpu(int vertex) const { return kinds_[vertex] == VertexKind::gpu; }
  VertexKind kind_of(int vertex) const { return kinds_[vertex]; }
  std::array<int, kVertexKinds> vertex_counts() const;
  std::array<int, kLinkClasses> link_counts() const;
  // For people: "gpu 17", "nvswitch 2" (node 2's), "nic 17" (GPU 17's), "leaf 3", "spine 0",
  // "agg 0"; with several planes "plane 1 leaf 3" (plane-local numbers); in a clos3 "pod 1 spine
  // 2" (pod-local); a link as "gpu 17 -> nvswitch 2".
  // O(vertices).
  std::string vertex_name(int vertex) const;
  std::string link_name(int link) const;

  Route route(int src_gpu, int dst_gpu) const;
  // The same into `out`, reusing its storage: for callers that walk millions of routes.
  void route(int src_gpu, int dst_gpu, Route& out) const;
  // A route that climbs from its leaf to every spine index s with spread[s] > 0 (one entry per
  // spine of a plane, summing to 1), carrying that share of the bytes on the leaf's uplink to s
  // and s's downlink to the destination leaf: a bundle standing for transfers that climb to
  // several spines (net/group_layout.hpp). Latency as one path's. On a fault-free fabric of one
  // port per NIC, between leaves of one pod; otherwise, or with `spread` empty, route().
  void route(int src_gpu, int dst_gpu, std::span<const double> spread, Route& out) const;
  // Whether the fault-free route between two GPUs of different nodes climbs to a spine (leaves
  // differ), without building the route.
  bool crosses_spine(int src_gpu, int dst_gpu) const;
  // The leaf of the GPU's NIC (global index: plane · leaves per plane + leaf; on a dual-plane
  // fabric, its port's in plane 0); -1 without a fabric.
  int leaf_of(int gpu) const { return leaf_of_gpu_.empty() ? -1 : leaf_of_gpu_[gpu]; }
  // Whether one of the GPU's NIC ports hangs off the (global) leaf.
  bool on_leaf(int gpu, int leaf) const {
    return leaf_of(gpu) == leaf || (ports_ == 2 && leaf_of(gpu) + leaves_per_plane_ == leaf);
  }
  // The link that every route crossing `link` crosses next, and no other route crosses: on a
  // fabric of one port per NIC, a GPU's link to its NIC is always followed by the NIC's link to
  // its leaf, and the leaf's link to the NIC by the NIC's link to the GPU (a NIC is no route's
  // end, and no route turns back at it). -1 for any other link.
  int series_next(int link) const { return links_[link].series_next; }
  // The link every route crossing `link` crossed just before (the converse), or -1.
  int series_prev(int link) const { return links_[link].series_prev; }
  // Smallest bandwidth along a route per byte of the flow (a link's bandwidth over its share:
  // the analytic model's bottleneck) and its link class.
  std::pair<double, LinkClass> bottleneck(const Route& r) const;
  double slowdown_of(int gpu) const;  // straggler factor, 1 when none

  // Scale-out bisection: the least total bandwidth crossing any cut of the nodes in two halves
  // (NICs and leaf uplinks); for one node, the NVLink bisection.
  double bisection_bandwidth() const;
  int longest_route_hops() const;  // over routes from GPU 0 and from the last GPU of node 0

 private:
  // The GPU whose NIC a transfer from `a` to `b` on another node leaves by: `a`, or with PXN the
  // GPU of a's node on b's plane.
  int fabric_entry(int a, int b) const;
  int add_vertex(VertexKind k);
  int add_link(int from, int to, LinkClass c, double bw, double lat);
  void build_fabric();
  void build_clos3_core(const std::vector<int>& leaf_v);
  void apply_faults();
  // The links a fault acts on (none for a GPU's compute); throws engine::UserError for a
  // component the cluster does not have.
  std::vector<int> links_hit(const spec::FaultSpec& f) const;
  void switch_links(const spec::FaultSpec& f, std::vector<int>& hit) const;
  bool route_is_up(const Route& r) const;
  Route search(int src_gpu, int dst_gpu) const;
  void append(Route& r, int link, double share = 1.0) const;
  // Appends the fabric part of a route, NIC port to NIC port, over port `port`'s plane; returns
  // whether all of it is up.
  bool climb(Route& r, int src, int dst, int port, std::span<const double> spread = {}) const;

  spec::ClusterSpec spec_;
  int planes_ = 0, leaves_per_plane_ = 0, spines_per_plane_ = 0, pods_ = 1, leaves_per_pod_ = 0;
  int ports_ = 1;  // NIC ports, each on its own plane: 2 on a dual-plane fabric
  std::vector<VertexKind> kinds_;
  std::vector<Link> links_;
  bool any_down_ = false;  // a fault took a link down: routes are checked, and searched around it
  // The same links as a Boost graph (edge property: link id), for searches around faults. Built
  // with the topology and never changed after, so copies share it.
  struct SearchGraph;  // topology_routes.cpp
  static std::shared_ptr<SearchGraph> new_search_graph();
  std::shared_ptr<SearchGraph> graph_;
  // Lookup tables, indexed by GPU or by (plane-local) switch number.
  std::vector<int> gpu_up_, gpu_down_;        // GPU -> NVSwitch, NVSwitch -> GPU
  std::vector<int> nic_up_, nic_down_;        // GPU -> NIC, NIC -> GPU
  std::vector<int> access_up_, access_down_;  // [port · gpus + gpu]: NIC -> leaf, leaf -> NIC
  std::vector<int> leaf_of_gpu_;              // global leaf index (plane * L + l)
  std::vector<int> core_up_, core_down_;      // [leaf * spines + s]: leaf -> spine, spine -> leaf
  std::vector<int> agg_up_, agg_down_;        // [pod * spines + s]: spine -> agg s, agg s -> spine
  std::vector<int> gpu_vertex_;
  std::vector<double> slowdown_;
};

}  // namespace stepsim::hw
