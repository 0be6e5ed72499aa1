#include "sim/spec/cluster.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/engine/check.hpp"

namespace stepsim::spec {

FabricShape fabric_shape(const ClusterSpec& c) {
  if (c.fabric.kind == FabricKind::none) return {};
  const int half = c.fabric.nodes_per_leaf(c.gpus_per_node);
  const int leaves_per_rail = (c.nodes + half - 1) / half;
  FabricShape s;
  if (c.fabric.kind == FabricKind::clos3) {
    s.planes = 1;
    s.leaves_per_plane = leaves_per_rail;
    const int per_pod = std::max(1, c.fabric.leaves_per_pod);
    s.pods = (s.leaves_per_plane + per_pod - 1) / per_pod;
    s.spines_per_plane = s.leaves_per_plane > 1 ? c.fabric.switch_ports / 2 : 0;
    s.aggs = s.pods > 1 ? s.spines_per_plane : 0;
    return s;
  }
  const bool multi = c.fabric.kind == FabricKind::multi_plane_fat_tree;
  s.planes = multi ? c.gpus_per_node : c.fabric.kind == FabricKind::dual_plane ? 2 : 1;
  s.leaves_per_plane = multi ? leaves_per_rail : leaves_per_rail * c.gpus_per_node;
  s.spines_per_plane = s.leaves_per_plane > 1 ? (s.leaves_per_plane + 1) / 2 : 0;
  return s;
}

std::vector<std::string> fabric_differences(const ClusterSpec& a, const ClusterSpec& b) {
  std::vector<std::string> out;
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return std::string(text);
  };
  auto value = [&](const char* key, double x, double y) {
    if (x != y) out.push_back(std::string(key) + " (" + number(y) + ", not " + number(x) + ")");
  };
  auto word = [&](const char* key, const std::string& x, const std::string& y) {
    if (x != y) out.push_back(std::string(key) + " (" + y + ", not " + x + ")");
  };
  auto whole = [&](const char* key, bool same) {
    if (!same) out.push_back(key);
  };
  const DeviceSpec &d = a.device, &e = b.device;
  word("device.name", d.name, e.name);
  value("device.sms", d.sms, e.sms);
  value("device.memory.capacity", d.memory_bytes, e.memory_bytes);
  value("device.memory.bandwidth", d.hbm_bandwidth, e.hbm_bandwidth);
  value("device.launch_overhead", d.launch_overhead_s, e.launch_overhead_s);
  value("device.kernel_gap", d.kernel_gap_s, e.kernel_gap_s);
  whole("device.comm_beside_compute", d.comm_beside_compute == e.comm_beside_compute);
  whole("device.compute", d.rates == e.rates);
  whole("device.kernel_tables", d.tables == e.tables);
  value("gpus_per_node", a.gpus_per_node, b.gpus_per_node);
  whole("nvlink", a.nvlink == b.nvlink);
  value("nvls_bandwidth", a.nvls_bandwidth, b.nvls_bandwidth);
  value("deepep.nvlink_bandwidth", a.deepep_nvlink_bandwidth, b.deepep_nvlink_bandwidth);
  value("deepep.sms", a.deepep_sms, b.deepep_sms);
  const FabricSpec &f = a.fabric, &g = b.fabric;
  word("fabric.kind", std::string(kFabricKinds.word(f.kind)),
       std::string(kFabricKinds.word(g.kind)));
  value("fabric.planes", f.planes, g.planes);
  value("fabric.switch_ports", f.switch_ports, g.switch_ports);
  value("fabric.oversubscription", f.oversubscription, g.oversubscription);
  whole("fabric.nic", f.nic == g.nic);
  value("fabric.spine_latency", f.spine_latency_s, g.spine_latency_s);
  value("fabric.sharp", f.sharp, g.sharp);
  word("fabric.routing", std::string(kRoutings.word(f.routing)),
       std::string(kRoutings.word(g.routing)));
  value("fabric.leaves_per_pod", f.leaves_per_pod, g.leaves_per_pod);
  value("fabric.pod_oversubscription", f.pod_oversubscription, g.pod_oversubscription);
  value("fabric.agg_latency", f.agg_latency_s, g.agg_latency_s);
  whole("variability", a.variability == b.variability);
  word("placement", std::string(kPlacements.word(a.placement)),
       std::string(kPlacements.word(b.placement)));
  return out;
}

int leaf_port(const ClusterSpec& c, int gpu) {
  const int node = c.slot_of(gpu / c.gpus_per_node),
            half = c.fabric.nodes_per_leaf(c.gpus_per_node);
  if (c.fabric.kind == FabricKind::clos3)
    return node % half * c.gpus_per_node + gpu % c.gpus_per_node;
  return node % half;
}

std::vector<int> placement_slots(const ClusterSpec& c, Placement placement) {
  if (placement != Placement::spread && placement != Placement::zones) return {};
  // Slots group by group in round-robin order: the first slot of every group (a leaf, or a
  // zone's leaves), then the second, ... skipping slots past the last node.
  const int half = std::max(1, c.fabric.nodes_per_leaf(c.gpus_per_node));
  const int group =
      placement == Placement::spread ? half : half * std::max(1, c.fabric.leaves_per_pod);
  const int groups = (c.nodes + group - 1) / group;
  std::vector<int> slots;
  for (int i = 0; i < group; ++i)
    for (int g = 0; g < groups; ++g)
      if (g * group + i < c.nodes) slots.push_back(g * group + i);
  return slots;
}

}  // namespace stepsim::spec
