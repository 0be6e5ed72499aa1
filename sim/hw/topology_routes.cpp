// Topology's routes: the fault-free route between two GPUs (destination routing, PXN, dual-plane
// forks, a bundle spread over spines) and the breadth-first search around failed links.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "sim/engine/check.hpp"
#include "sim/engine/splitmix.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::hw {

namespace {

// A flow's hash for ECMP (spec::Routing::ecmp_hash): splitmix64 of its source and destination.
int ecmp_hash(int src, int dst) {
  return static_cast<int>(
      engine::splitmix64(static_cast<std::uint64_t>(src) << 32 | static_cast<std::uint32_t>(dst)) %
      1000003);
}

}  // namespace

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                    boost::property<boost::edge_index_t, int>>;
// The graph a route around failed links is searched on: made at the first search, from the
// vertices and links in the order they were added (so the search is the same whenever it runs).
// A fault-free cluster never needs it: a million GPUs' graph alone was 0.5 GB.
struct Topology::SearchGraph {
  std::once_flag made;
  Graph g;
};

void Topology::append(Route& r, int link, double share) const {
  if (share != 1.0 && r.share.empty()) r.share.assign(r.links.size(), 1.0);
  r.links.push_back(link);
  if (!r.share.empty()) r.share.push_back(share);
  r.latency_s += links_[link].latency_s;
}

bool Topology::route_is_up(const Route& r) const {
  return !any_down_ ||
         std::all_of(r.links.begin(), r.links.end(), [&](int l) { return links_[l].up; });
}

Route Topology::route(int a, int b) const {
  Route r;
  route(a, b, r);
  return r;
}

void Topology::route(int a, int b, Route& r) const {
  route(a, b, {}, r);
}

void Topology::route(int a, int b, std::span<const double> spread, Route& r) const {
  STEPSIM_CHECK(a >= 0 && a < gpus() && b >= 0 && b < gpus(), "route between unknown GPUs");
  r.links.clear();
  r.share.clear();
  r.latency_s = 0.0;
  r.spread = false;
  if (a == b) return;
  if (node_of(a) == node_of(b)) {
    append(r, gpu_up_[a]);
    append(r, gpu_down_[b]);
    if (!route_is_up(r)) r = search(a, b);
    return;
  }
  STEPSIM_CHECK(!nic_up_.empty(), "nodes without a fabric");
  const int src = fabric_entry(a, b);
  if (src != a) {  // PXN: onto the destination's plane
    append(r, gpu_up_[a]);
    append(r, gpu_down_[src]);
  }
  append(r, nic_up_[src]);
  if (ports_ == 1) {
    climb(r, src, b, 0, spread);
  } else {
    Route plane[2];
    const bool up[2] = {climb(plane[0], src, b, 0), climb(plane[1], src, b, 1)};
    const int live = up[0] + up[1];
    for (int p = 0; p < 2; ++p)
      if (up[p] || live == 0)
        for (int l : plane[p].links) append(r, l, live == 2 ? 0.5 : 1.0);
    // Both planes' paths have the same latency: count one.
    if (live == 2) r.latency_s -= plane[1].latency_s;
  }
  append(r, nic_down_[b]);
  if (!route_is_up(r)) r = search(a, b);
}

bool Topology::climb(Route& r, int src, int b, int port, std::span<const double> spread) const {
  const int n = gpus(), shift = port * leaves_per_plane_;
  append(r, access_up_[port * n + src]);
  const int la = leaf_of_gpu_[src] + shift, lb = leaf_of_gpu_[b] + shift;
  if (la != lb) {
    // Destination routing: the destination's port on its leaf picks the spine (and, between
    // pods, the aggregation plane of that spine index).
    const int k = spines_per_plane_, pa = pod_of_leaf(la), pb = pod_of_leaf(lb);
    auto live = [&](int s) {
      if (!any_down_) return true;
      return links_[core_up_[la * k + s]].up && links_[core_down_[lb * k + s]].up &&
             (pa == pb || (links_[agg_up_[pa * k + s]].up && links_[agg_down_[pb * k + s]].up));
    };
    int s = spec_.fabric.routing == spec::Routing::ecmp_hash ? ecmp_hash(src, b) % k
                                                             : spec::leaf_port(spec_, b) % k;
    for (int tries = 0; tries < k && !live(s); ++tries) s = (s + 1) % k;
    if (!spread.empty() && pa == pb) {
      STEPSIM_CHECK(spread.size() == static_cast<std::size_t>(k), "a spread over other spines");
      const double before = r.latency_s;
      for (int t = 0; t < k; ++t)
        if (spread[t] > 0.0) append(r, core_up_[la * k + t], spread[t]);
      for (int t = 0; t < k; ++t)
        if (spread[t] > 0.0) append(r, core_down_[lb * k + t], spread[t]);
      r.latency_s = before + links_[core_up_[la * k + s]].latency_s +
                    links_[core_down_[lb * k + s]].latency_s;
      r.spread = true;
      append(r, access_down_[port * n + b]);
      return route_is_up(r);
    }
    append(r, core_up_[la * k + s]);
    if (pa != pb) {
      append(r, agg_up_[pa * k + s]);
      append(r, agg_down_[pb * k + s]);
    }
    append(r, core_down_[lb * k + s]);
  }
  append(r, access_down_[port * n + b]);
  return route_is_up(r);
}

int Topology::fabric_entry(int a, int b) const {
  if (spec_.fabric.pxn() && local_of(a) != local_of(b))
    return node_of(a) * spec_.gpus_per_node + local_of(b);
  return a;
}

bool Topology::crosses_spine(int a, int b) const {
  if (node_of(a) == node_of(b) || leaf_of_gpu_.empty()) return false;
  return leaf_of_gpu_[fabric_entry(a, b)] != leaf_of_gpu_[b];
}

Route Topology::search(int a, int b) const {
  struct LiveLink {
    const std::vector<Link>* links;
    const Graph* g;
    bool operator()(const Graph::edge_descriptor& e) const {
      return (*links)[boost::get(boost::edge_index, *g, e)].up;
    }
  };
  std::call_once(graph_->made, [this] {
    for (std::size_t v = 0; v < kinds_.size(); ++v) boost::add_vertex(graph_->g);
    for (std::size_t id = 0; id < links_.size(); ++id)
      boost::add_edge(static_cast<std::size_t>(links_[id].from),
                      static_cast<std::size_t>(links_[id].to), static_cast<int>(id), graph_->g);
  });
  const boost::filtered_graph<Graph, LiveLink> live(graph_->g, LiveLink{&links_, &graph_->g});
  const std::size_t nv = boost::num_vertices(graph_->g);
  std::vector<int> via(nv, -1);  // link id reaching each vertex
  std::vector<boost::default_color_type> color(nv);
  const auto src = static_cast<std::size_t>(gpu_vertex_[a]);
  struct Recorder : boost::default_bfs_visitor {
    std::vector<int>* via;
    void tree_edge(const Graph::edge_descriptor& e,
                   const boost::filtered_graph<Graph, LiveLink>& g) const {
      (*via)[boost::target(e, g)] = static_cast<int>(boost::get(boost::edge_index, g, e));
    }
  };
  Recorder rec;
  rec.via = &via;
  boost::breadth_first_search(live, src,
                              boost::visitor(rec).color_map(boost::make_iterator_property_map(
                                  color.begin(), boost::get(boost::vertex_index, graph_->g))));
  const auto dst = static_cast<std::size_t>(gpu_vertex_[b]);
  if (via[dst] < 0)
    throw Unreachable({"faults", 0, 0},
                      "GPU " + std::to_string(a) + " cannot reach GPU " + std::to_string(b) +
                          ": the failed links cut it off",
                      "remove a *_down fault, or leave that GPU out of the group");
  Route r;
  for (std::size_t v = dst; v != src; v = static_cast<std::size_t>(links_[via[v]].from))
    r.links.push_back(via[v]);
  std::reverse(r.links.begin(), r.links.end());
  for (int l : r.links) r.latency_s += links_[l].latency_s;
  return r;
}

std::pair<double, LinkClass> Topology::bottleneck(const Route& r) const {
  std::pair<double, LinkClass> best{INFINITY, LinkClass::nvlink};
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    const Link& l = links_[r.links[i]];
    if (l.bandwidth / r.share_of(i) < best.first) best = {l.bandwidth / r.share_of(i), l.cls};
  }
  return best;
}

std::shared_ptr<Topology::SearchGraph> Topology::new_search_graph() {
  return std::make_shared<SearchGraph>();
}

}  // namespace stepsim::hw
