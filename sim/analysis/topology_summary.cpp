#include "sim/analysis/topology_summary.hpp"

namespace stepsim::analysis {

TopologySummary summarize(const hw::Topology& t) {
  const auto v = t.vertex_counts();
  const spec::ClusterSpec& spec = t.spec();
  TopologySummary s;
  s.cluster = spec.name;
  s.nodes = spec.nodes;
  s.placement = spec.placement;
  for (int i = 0; i < static_cast<int>(t.links().size()); ++i)
    ++s.groups[static_cast<int>(hw::link_group(t, i))];
  s.longest_route_hops = t.longest_route_hops();
  using hw::LinkClass;
  using hw::LinkGroup;
  using hw::VertexKind;
  auto vc = [&](VertexKind k) { return v[static_cast<int>(k)]; };
  double core_up = 0.0, agg_up = 0.0;
  for (const hw::Link& link : t.links()) {
    if (link.cls == LinkClass::ib_core && t.kind_of(link.from) == VertexKind::leaf)
      core_up += link.bandwidth;
    if (link.cls == LinkClass::ib_agg && t.kind_of(link.from) == VertexKind::spine)
      agg_up += link.bandwidth;
  }
  if (spec.fabric.kind != spec::FabricKind::none) {
    s.tiers.push_back({"leaf", vc(VertexKind::leaf), spec.fabric.oversubscription, core_up});
    if (vc(VertexKind::spine) > 0)
      s.tiers.push_back({"spine", vc(VertexKind::spine),
                         vc(VertexKind::agg) > 0 ? spec.fabric.pod_oversubscription : 1.0, agg_up});
    if (vc(VertexKind::agg) > 0) s.tiers.push_back({"aggregation", vc(VertexKind::agg), 1.0, 0.0});
  }
  s.fabric = spec.fabric.kind != spec::FabricKind::none;
  s.nvlink_per_gpu = spec.nvlink.bandwidth;
  s.nic_per_gpu = s.fabric ? spec.fabric.nic.bandwidth : 0.0;
  const bool dual = spec.fabric.kind == spec::FabricKind::dual_plane;
  s.rows = {{"gpus", "GPUs", t.gpus(),
             std::to_string(spec.nodes) + " nodes x " + std::to_string(spec.gpus_per_node)},
            {"nvswitches", "NVSwitches", vc(VertexKind::nvswitch), "one per node"},
            {"nics", "NICs", vc(VertexKind::nic),
             dual ? "one per GPU, a port on each plane" : "one per GPU"},
            {"leaf_switches", "leaf switches", vc(VertexKind::leaf),
             std::to_string(t.leaves_per_plane()) + " per plane, " + std::to_string(t.planes()) +
                 " plane(s)"},
            {"spine_switches", "spine switches", vc(VertexKind::spine),
             t.pods() > 1
                 ? std::to_string(t.spines_per_plane()) + " per pod, " + std::to_string(t.pods()) +
                       " pods of " + std::to_string(spec.fabric.leaves_per_pod) + " leaves"
                 : std::to_string(t.spines_per_plane()) + " per plane"}};
  if (vc(VertexKind::agg) > 0)
    s.rows.push_back(
        {"aggregation_planes", "aggregation planes", vc(VertexKind::agg),
         "one per spine index, linking that spine of every pod (its switches merged)"});
  const char* link_notes[] = {
      "directed, GPU <-> NVSwitch",
      dual ? "directed, GPU <-> NIC and NIC port <-> leaf" : "directed, GPU <-> NIC <-> leaf",
      "directed, leaf -> spine (parallel ports aggregated)",
      "directed, spine -> leaf (parallel ports aggregated)",
      "directed, spine -> aggregation plane",
      "directed, aggregation plane -> spine"};
  for (int g = 0; g < hw::kLinkGroups; ++g) {
    const auto group = static_cast<LinkGroup>(g);
    if (s.groups[g] == 0 && g >= static_cast<int>(LinkGroup::pod_uplink)) continue;
    s.rows.push_back({"links_" + std::string(hw::kLinkGroupNames.word(group)),
                      "links " + std::string(hw::to_string(group)), s.groups[g], link_notes[g]});
  }

  s.switches = vc(VertexKind::leaf) + vc(VertexKind::spine);
  s.planes = t.planes();
  s.pods = t.pods();
  s.bisection = t.bisection_bandwidth();
  s.faults = static_cast<int>(spec.faults.size());
  return s;
}

}  // namespace stepsim::analysis
