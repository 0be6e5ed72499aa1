#include "sim/hw/topology.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/check.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::hw {

std::string_view to_string(VertexKind k) {
  static constexpr std::string_view kNames[] = {"gpu", "nvswitch", "nic", "leaf", "spine", "agg"};
  return kNames[static_cast<int>(k)];
}

std::string_view to_string(LinkClass c) {
  static constexpr std::string_view kNames[] = {"nvlink", "nic", "ib_access", "ib_core", "ib_agg"};
  return kNames[static_cast<int>(c)];
}

namespace {

[[noreturn]] void bad_fault(const std::string& what) {
  throw engine::UserError({"faults", 0, 0}, what,
                          "indices are 0-based and must exist in the cluster");
}

}  // namespace

std::string Topology::vertex_name(int vertex) const {
  const VertexKind k = kinds_[vertex];
  const int ordinal = static_cast<int>(std::count(kinds_.begin(), kinds_.begin() + vertex, k));
  std::string name = std::string(to_string(k)) + " ";
  if (k == VertexKind::leaf && planes_ > 1)
    return "plane " + std::to_string(ordinal / leaves_per_plane_) + " " + name +
           std::to_string(ordinal % leaves_per_plane_);
  if (k == VertexKind::spine && pods_ > 1)
    return "pod " + std::to_string(ordinal / spines_per_plane_) + " " + name +
           std::to_string(ordinal % spines_per_plane_);
  if (k == VertexKind::spine && planes_ > 1)
    return "plane " + std::to_string(ordinal / spines_per_plane_) + " " + name +
           std::to_string(ordinal % spines_per_plane_);
  return name + std::to_string(ordinal);
}

std::string Topology::link_name(int link) const {
  return vertex_name(links_[link].from) + " -> " + vertex_name(links_[link].to);
}

int Topology::add_vertex(VertexKind k) {
  kinds_.push_back(k);
  return static_cast<int>(kinds_.size() - 1);
}

int Topology::add_link(int from, int to, LinkClass c, double bw, double lat) {
  const int id = static_cast<int>(links_.size());
  links_.push_back({.from = from, .to = to, .cls = c, .bandwidth = bw, .latency_s = lat});
  return id;
}

double Topology::estimate_bytes(const spec::ClusterSpec& spec) {
  // Per GPU: its vertex, NVSwitch share, NIC, four links each way with their graph edges and
  // the per-GPU index arrays; per leaf-spine pair: two core links. Measured peak RSS: 1 Mi GPUs
  // on 2048-port switches 723 MB (690 B per GPU); on 512-port ones 167 MB more for 1 M more
  // leaf-spine pairs (170 B each); both rounded up by about 40 %. The search graph is made only
  // for a route around failed links; the estimate keeps room for it.
  constexpr double kBytesPerGpu = 1000.0, kBytesPerCoreLink = 300.0, kBase = 16e6;
  const spec::FabricShape f = spec::fabric_shape(spec);
  const double core = static_cast<double>(f.planes) * f.leaves_per_plane * f.spines_per_plane;
  return kBase + kBytesPerGpu * static_cast<double>(spec.nodes) * spec.gpus_per_node +
         kBytesPerCoreLink * core;
}

Topology::Topology(const spec::ClusterSpec& spec) : spec_(spec), graph_(new_search_graph()) {
  const int n = spec.world_size(), gpn = spec.gpus_per_node;
  STEPSIM_CHECK(n > 0 && gpn > 0, "empty cluster");
  gpu_vertex_.resize(n);
  gpu_up_.resize(n);
  gpu_down_.resize(n);
  for (int node = 0; node < spec.nodes; ++node) {
    const int sw = add_vertex(VertexKind::nvswitch);
    for (int i = 0; i < gpn; ++i) {
      const int g = node * gpn + i;
      gpu_vertex_[g] = add_vertex(VertexKind::gpu);
      gpu_up_[g] = add_link(gpu_vertex_[g], sw, LinkClass::nvlink, spec.nvlink.bandwidth,
                            spec.nvlink.latency_s / 2);
      gpu_down_[g] = add_link(sw, gpu_vertex_[g], LinkClass::nvlink, spec.nvlink.bandwidth,
                              spec.nvlink.latency_s / 2);
    }
  }
  if (spec.fabric.kind != spec::FabricKind::none) build_fabric();
  slowdown_.assign(n, 1.0);
  apply_faults();
}

void Topology::build_fabric() {
  const auto& f = spec_.fabric;
  const int n = spec_.world_size(), gpn = spec_.gpus_per_node, half = f.nodes_per_leaf(gpn);
  const bool multi = f.kind == spec::FabricKind::multi_plane_fat_tree;
  const bool clos3 = f.kind == spec::FabricKind::clos3;
  ports_ = f.kind == spec::FabricKind::dual_plane ? 2 : 1;
  const double port_bw = f.nic.bandwidth / ports_;
  const spec::FabricShape shape = spec::fabric_shape(spec_);
  planes_ = shape.planes;
  leaves_per_plane_ = shape.leaves_per_plane;
  spines_per_plane_ = shape.spines_per_plane;
  pods_ = shape.pods;
  leaves_per_pod_ = clos3 ? f.leaves_per_pod : 0;
  const int leaves_per_rail = (spec_.nodes + half - 1) / half;
  const double nic_lat = f.nic.latency_s / 2;     // NIC-leaf-NIC: the NIC latency
  const double core_lat = f.spine_latency_s / 2;  // leaf-spine-leaf: the spine's extra
  std::vector<int> leaf_v(static_cast<std::size_t>(planes_) * leaves_per_plane_);
  for (auto& v : leaf_v) v = add_vertex(VertexKind::leaf);
  nic_up_.resize(n);
  nic_down_.resize(n);
  access_up_.resize(static_cast<std::size_t>(ports_) * n);
  access_down_.resize(static_cast<std::size_t>(ports_) * n);
  leaf_of_gpu_.resize(n);
  for (int g = 0; g < n; ++g) {
    const int node = spec_.slot_of(g / gpn), local = g % gpn;
    const int leaf = clos3   ? node / half
                     : multi ? local * leaves_per_plane_ + node / half
                             : local * leaves_per_rail + node / half;
    const int nic = add_vertex(VertexKind::nic);
    nic_up_[g] = add_link(gpu_vertex_[g], nic, LinkClass::nic, f.nic.bandwidth, 0.0);
    nic_down_[g] = add_link(nic, gpu_vertex_[g], LinkClass::nic, f.nic.bandwidth, 0.0);
    for (int port = 0; port < ports_; ++port) {
      const int v = leaf_v[port * leaves_per_plane_ + leaf];
      access_up_[port * n + g] = add_link(nic, v, LinkClass::ib_access, port_bw, nic_lat);
      access_down_[port * n + g] = add_link(v, nic, LinkClass::ib_access, port_bw, nic_lat);
    }
    if (ports_ == 1) {  // the NIC's one port: in series with the GPU's link both ways
      links_[nic_up_[g]].series_next = access_up_[g];
      links_[access_up_[g]].series_prev = nic_up_[g];
      links_[access_down_[g]].series_next = nic_down_[g];
      links_[nic_down_[g]].series_prev = access_down_[g];
    }
    leaf_of_gpu_[g] = leaf;
  }
  if (spines_per_plane_ == 0) return;
  if (clos3) {
    build_clos3_core(leaf_v);
    return;
  }
  // Each leaf's k/2 uplinks spread over the plane's spines, aggregated per leaf-spine pair.
  const double ports_per_pair = static_cast<double>(half) / spines_per_plane_;
  const double up_bw = port_bw * ports_per_pair / f.oversubscription;
  core_up_.resize(leaf_v.size() * spines_per_plane_);
  core_down_.resize(leaf_v.size() * spines_per_plane_);
  for (int p = 0; p < planes_; ++p) {
    std::vector<int> spine_v(spines_per_plane_);
    for (auto& v : spine_v) v = add_vertex(VertexKind::spine);
    for (int l = 0; l < leaves_per_plane_; ++l) {
      const int leaf = p * leaves_per_plane_ + l;
      for (int s = 0; s < spines_per_plane_; ++s) {
        core_up_[leaf * spines_per_plane_ + s] =
            add_link(leaf_v[leaf], spine_v[s], LinkClass::ib_core, up_bw, core_lat);
        core_down_[leaf * spines_per_plane_ + s] =
            add_link(spine_v[s], leaf_v[leaf], LinkClass::ib_core, up_bw, core_lat);
      }
    }
  }
}

void Topology::build_clos3_core(const std::vector<int>& leaf_v) {
  const auto& f = spec_.fabric;
  const int k = spines_per_plane_;  // a leaf's uplinks, one per spine of its pod
  const double up_bw = f.nic.bandwidth / f.oversubscription;
  const double core_lat = f.spine_latency_s / 2, agg_lat = f.agg_latency_s / 2;
  std::vector<int> spine_v(static_cast<std::size_t>(pods_) * k);
  for (auto& v : spine_v) v = add_vertex(VertexKind::spine);
  core_up_.resize(leaf_v.size() * k);
  core_down_.resize(leaf_v.size() * k);
  for (int l = 0; l < leaves_per_plane_; ++l)
    for (int s = 0; s < k; ++s) {
      const int spine = spine_v[pod_of_leaf(l) * k + s];
      core_up_[l * k + s] = add_link(leaf_v[l], spine, LinkClass::ib_core, up_bw, core_lat);
      core_down_[l * k + s] = add_link(spine, leaf_v[l], LinkClass::ib_core, up_bw, core_lat);
    }
  if (pods_ == 1) return;
  // A spine's share of its pod's uplink capacity: leaves_per_pod leaf links, oversubscribed.
  const double agg_bw = up_bw * f.leaves_per_pod / f.pod_oversubscription;
  std::vector<int> agg_v(k);
  for (auto& v : agg_v) v = add_vertex(VertexKind::agg);
  agg_up_.resize(spine_v.size());
  agg_down_.resize(spine_v.size());
  for (int p = 0; p < pods_; ++p)
    for (int s = 0; s < k; ++s) {
      const int i = p * k + s;
      agg_up_[i] = add_link(spine_v[i], agg_v[s], LinkClass::ib_agg, agg_bw, agg_lat);
      agg_down_[i] = add_link(agg_v[s], spine_v[i], LinkClass::ib_agg, agg_bw, agg_lat);
    }
}

void Topology::apply_faults() {
  for (const spec::FaultSpec& f : spec_.faults) {
    const std::vector<int> hit = links_hit(f);
    switch (f.effect()) {
      case spec::FaultEffect::down:
        for (int l : hit) {
          any_down_ = any_down_ || links_[l].up;
          links_[l].up = false;
        }
        break;
      case spec::FaultEffect::degrade:
        for (int l : hit) links_[l].bandwidth *= f.factor;
        break;
      case spec::FaultEffect::slowdown:
        if (f.gpu < 0 || f.gpu >= gpus()) bad_fault("straggler names GPU " + std::to_string(f.gpu));
        slowdown_[f.gpu] *= f.factor;
        break;
    }
  }
}

std::vector<int> Topology::links_hit(const spec::FaultSpec& f) const {
  const int gpn = spec_.gpus_per_node;
  std::vector<int> hit;
  // A GPU's NIC, with its cable to its leaf (one per port of a dual-plane NIC).
  auto nic = [&](int g) {
    for (int l : {nic_up_[g], nic_down_[g]}) hit.push_back(l);
    for (int port = 0; port < ports_; ++port)
      for (int l : {access_up_[port * gpus() + g], access_down_[port * gpus() + g]})
        hit.push_back(l);
  };
  switch (f.target()) {
    case spec::FaultTarget::nic:
      if (spec_.fabric.kind == spec::FabricKind::none)
        bad_fault("NIC fault on a cluster without NICs");
      if (f.node < 0 || f.node >= spec_.nodes || f.nic < 0 || f.nic >= gpn)
        bad_fault("NIC fault names node " + std::to_string(f.node) + " NIC " +
                  std::to_string(f.nic) + "; the cluster has " + std::to_string(spec_.nodes) +
                  " nodes of " + std::to_string(gpn));
      nic(f.node * gpn + f.nic);
      break;
    case spec::FaultTarget::link: {
      if (spines_per_plane_ == 0) bad_fault("leaf-spine fault on a fabric without spines");
      if (f.plane < 0 || f.plane >= planes_ || f.leaf < 0 || f.leaf >= leaves_per_plane_ ||
          f.spine < 0 || f.spine >= spines_per_plane_)
        bad_fault("link fault names plane " + std::to_string(f.plane) + " leaf " +
                  std::to_string(f.leaf) + " spine " + std::to_string(f.spine) +
                  "; the fabric has " + std::to_string(planes_) + " plane(s) of " +
                  std::to_string(leaves_per_plane_) + " leaves and " +
                  std::to_string(spines_per_plane_) + " spines");
      const int i = (f.plane * leaves_per_plane_ + f.leaf) * spines_per_plane_ + f.spine;
      hit = {core_up_[i], core_down_[i]};
      break;
    }
    case spec::FaultTarget::fabric_switch:
      switch_links(f, hit);
      break;
    case spec::FaultTarget::node:
      if (f.node < 0 || f.node >= spec_.nodes)
        bad_fault("node fault names node " + std::to_string(f.node));
      for (int g = f.node * gpn; g < (f.node + 1) * gpn; ++g) {
        hit.push_back(gpu_up_[g]);
        hit.push_back(gpu_down_[g]);
        if (!nic_up_.empty()) nic(g);
      }
      break;
    case spec::FaultTarget::nvlink:
      if (f.gpu < 0 || f.gpu >= gpus())
        bad_fault("NVLink fault names GPU " + std::to_string(f.gpu));
      hit = {gpu_up_[f.gpu], gpu_down_[f.gpu]};
      break;
    case spec::FaultTarget::gpu:
      break;
  }
  return hit;
}

void Topology::switch_links(const spec::FaultSpec& f, std::vector<int>& hit) const {
  if (spines_per_plane_ == 0 && f.spine >= 0) bad_fault("spine fault on a fabric without spines");
  if (spec_.fabric.kind == spec::FabricKind::none)
    bad_fault("switch fault on a cluster without a fabric");
  const int k = spines_per_plane_;
  const int count = f.leaf >= 0 ? leaves_per_plane_ : k * pods_;
  const int index = f.leaf >= 0 ? f.leaf : f.spine;
  if (f.plane < 0 || f.plane >= planes_ || index < 0 || index >= count)
    bad_fault("switch fault names plane " + std::to_string(f.plane) + " switch " +
              std::to_string(index) + "; the fabric has " + std::to_string(planes_) +
              " plane(s) of " + std::to_string(leaves_per_plane_) + " leaves and " +
              std::to_string(k * pods_) + " spines");
  // A spine's number is pod · spines per pod + its index in the pod (clos3).
  for (int l = 0; l < leaves_per_plane_; ++l)
    for (int sp = 0; sp < k; ++sp)
      if (f.leaf >= 0 ? l == f.leaf : pod_of_leaf(l) * k + sp == f.spine) {
        const int i = (f.plane * leaves_per_plane_ + l) * k + sp;
        hit.push_back(core_up_[i]);
        hit.push_back(core_down_[i]);
      }
  if (f.spine >= 0 && !agg_up_.empty()) {
    hit.push_back(agg_up_[f.spine]);
    hit.push_back(agg_down_[f.spine]);
  }
  if (f.leaf >= 0)
    for (int g = 0; g < gpus(); ++g)
      for (int port = 0; port < ports_; ++port)
        if (leaf_of_gpu_[g] + port * leaves_per_plane_ == f.plane * leaves_per_plane_ + f.leaf) {
          hit.push_back(access_up_[port * gpus() + g]);
          hit.push_back(access_down_[port * gpus() + g]);
        }
}

double Topology::slowdown_of(int gpu) const {
  return slowdown_[gpu];
}

std::array<int, kVertexKinds> Topology::vertex_counts() const {
  std::array<int, kVertexKinds> c{};
  for (VertexKind k : kinds_) ++c[static_cast<int>(k)];
  return c;
}

std::array<int, kLinkClasses> Topology::link_counts() const {
  std::array<int, kLinkClasses> c{};
  for (const Link& l : links_) ++c[static_cast<int>(l.cls)];
  return c;
}

double Topology::bisection_bandwidth() const {
  const double gpn = spec_.gpus_per_node;
  if (spec_.nodes == 1 || spec_.fabric.kind == spec::FabricKind::none)
    return gpn / 2.0 * spec_.nvlink.bandwidth;
  const double nics = spec_.world_size() / 2.0 * spec_.fabric.nic.bandwidth;
  if (spines_per_plane_ == 0) return nics;
  double uplinks = 0.0, aggs = 0.0;
  for (int l : core_up_) uplinks += links_[l].bandwidth;
  for (int l : agg_up_) aggs += links_[l].bandwidth;
  return std::min({nics, uplinks / 2.0, agg_up_.empty() ? INFINITY : aggs / 2.0});
}

int Topology::longest_route_hops() const {
  std::size_t longest = 0;
  for (int src : {0, spec_.gpus_per_node - 1})
    for (int g = 0; g < gpus(); ++g) {
      // A route split over two planes is as long as one plane's part.
      const Route r = route(src, g);
      const auto split =
          std::count_if(r.share.begin(), r.share.end(), [](double x) { return x < 1; });
      longest = std::max(longest, r.links.size() - static_cast<std::size_t>(split) / 2);
    }
  return static_cast<int>(longest);
}

}  // namespace stepsim::hw
