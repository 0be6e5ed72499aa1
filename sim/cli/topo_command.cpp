#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/config/load.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

int topo_command(const Args& args) {
  po::options_description opts(
      "stepsim topo CLUSTER [options]\n\n"
      "Builds the cluster's topology graph and prints its size: GPUs, NICs and switches,\n"
      "links per class, per-GPU bandwidths, bisection bandwidth, longest route.\n\nOptions");
  std::vector<std::string> files, sets;
  std::string max_memory_text;
  add_common_options(opts, sets);
  opts.add_options()("json", "print JSON");
  add_max_memory_option(opts, max_memory_text);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.size() != 1)
    throw engine::UserError({"<command line>", 0, 0}, "topo needs exactly one cluster file",
                            "stepsim topo topologies/h800-256x8-mpft.yaml");
  const double max_memory = max_memory_bytes(max_memory_text);
  const spec::ClusterSpec spec = config::load_cluster(files[0], parse_overrides(sets));
  check_memory(hw::Topology::estimate_bytes(spec), max_memory,
               files[0] + ": building this topology", "describe a smaller cluster");
  const hw::Topology t(spec);
  const auto v = t.vertex_counts();
  const auto l = t.link_counts();
  const int hops = t.longest_route_hops();
  using hw::LinkClass;
  using hw::VertexKind;
  auto vc = [&](VertexKind k) { return v[static_cast<int>(k)]; };
  auto lc = [&](LinkClass c) { return l[static_cast<int>(c)]; };
  // Each switching tier: its switches, the oversubscription of its uplinks and their total
  // bandwidth (per direction).
  struct Tier {
    std::string name;
    int switches = 0;
    double oversubscription = 1.0;
    double uplink_bandwidth = 0.0;
  };
  std::vector<Tier> tiers;
  double core_up = 0.0, agg_up = 0.0;
  for (const hw::Link& link : t.links()) {
    if (link.cls == LinkClass::ib_core && t.kind_of(link.from) == VertexKind::leaf)
      core_up += link.bandwidth;
    if (link.cls == LinkClass::ib_agg && t.kind_of(link.from) == VertexKind::spine)
      agg_up += link.bandwidth;
  }
  if (spec.fabric.kind != spec::FabricKind::none) {
    tiers.push_back({"leaf", vc(VertexKind::leaf), spec.fabric.oversubscription, core_up});
    if (vc(VertexKind::spine) > 0)
      tiers.push_back({"spine", vc(VertexKind::spine),
                       vc(VertexKind::agg) > 0 ? spec.fabric.pod_oversubscription : 1.0, agg_up});
    if (vc(VertexKind::agg) > 0) tiers.push_back({"aggregation", vc(VertexKind::agg), 1.0, 0.0});
  }
  if (vm.count("json")) {
    format::JsonWriter w;
    w.begin_object();
    w.field("cluster", spec.name);
    w.field("nodes", spec.nodes);
    w.field("placement", spec::kPlacements.word(spec.placement));
    w.field("gpus", t.gpus());
    w.field("nics", vc(VertexKind::nic));
    w.field("nvswitches", vc(VertexKind::nvswitch));
    w.field("leaf_switches", vc(VertexKind::leaf));
    w.field("spine_switches", vc(VertexKind::spine));
    w.field("aggregation_planes", vc(VertexKind::agg));
    w.field("switches", vc(VertexKind::leaf) + vc(VertexKind::spine));
    w.field("planes", t.planes());
    w.field("pods", t.pods());
    w.key("tiers").begin_array();
    for (const Tier& tier : tiers) {
      w.begin_object();
      w.field("tier", tier.name).field("switches", tier.switches);
      w.field("oversubscription", tier.oversubscription);
      w.field("uplink_bandwidth", tier.uplink_bandwidth);
      w.end_object();
    }
    w.end_array();
    w.key("links").begin_object();
    for (int c = 0; c < hw::kLinkClasses; ++c)
      w.field(hw::to_string(static_cast<LinkClass>(c)), l[c]);
    w.end_object();
    w.field("nvlink_bandwidth_per_gpu", spec.nvlink.bandwidth);
    w.field("nic_bandwidth_per_gpu",
            spec.fabric.kind == spec::FabricKind::none ? 0.0 : spec.fabric.nic.bandwidth);
    w.field("bisection_bandwidth", t.bisection_bandwidth());
    w.field("longest_route_hops", hops);
    w.field("faults", static_cast<int>(spec.faults.size()));
    w.end_object();
    std::cout << w.str();
    return 0;
  }
  std::cout << spec.name << "\n";
  if (spec.placement != spec::Placement::packed)
    std::cout << "  nodes placed " << spec::kPlacements.phrase(spec.placement)
              << " (placement: " << spec::kPlacements.word(spec.placement) << ")\n";
  format::TextTable tab({"component", "count", "notes"});
  tab.left_align_from(2);
  tab.row({"GPUs", std::to_string(t.gpus()),
           std::to_string(spec.nodes) + " nodes x " + std::to_string(spec.gpus_per_node)});
  tab.row({"NVSwitches", std::to_string(vc(VertexKind::nvswitch)), "one per node"});
  const bool dual = spec.fabric.kind == spec::FabricKind::dual_plane;
  tab.row({"NICs", std::to_string(vc(VertexKind::nic)),
           dual ? "one per GPU, a port on each plane" : "one per GPU"});
  tab.row({"leaf switches", std::to_string(vc(VertexKind::leaf)),
           std::to_string(t.leaves_per_plane()) + " per plane, " + std::to_string(t.planes()) +
               " plane(s)"});
  tab.row({"spine switches", std::to_string(vc(VertexKind::spine)),
           t.pods() > 1
               ? std::to_string(t.spines_per_plane()) + " per pod, " + std::to_string(t.pods()) +
                     " pods of " + std::to_string(spec.fabric.leaves_per_pod) + " leaves"
               : std::to_string(t.spines_per_plane()) + " per plane"});
  if (vc(VertexKind::agg) > 0)
    tab.row({"aggregation planes", std::to_string(vc(VertexKind::agg)),
             "one per spine index, linking that spine of every pod (its switches merged)"});
  tab.row({"links nvlink", std::to_string(lc(LinkClass::nvlink)), "directed, GPU <-> NVSwitch"});
  tab.row({"links nic", std::to_string(lc(LinkClass::nic)), "directed, GPU <-> NIC"});
  tab.row({"links ib_access", std::to_string(lc(LinkClass::ib_access)),
           dual ? "directed, NIC port <-> leaf" : "directed, NIC <-> leaf"});
  tab.row({"links ib_core", std::to_string(lc(LinkClass::ib_core)),
           "directed, leaf <-> spine (parallel ports aggregated)"});
  if (lc(LinkClass::ib_agg) > 0)
    tab.row({"links ib_agg", std::to_string(lc(LinkClass::ib_agg)),
             "directed, spine <-> aggregation plane"});
  std::cout << tab.render();
  if (!tiers.empty()) {
    format::TextTable tt({"tier", "switches", "uplinks", "oversubscription"});
    for (const Tier& tier : tiers)
      tt.row({tier.name, std::to_string(tier.switches),
              tier.uplink_bandwidth > 0.0 ? format::fixed(tier.uplink_bandwidth / 1e12, 1) + " TB/s"
                                          : "-",
              tier.uplink_bandwidth > 0.0 ? "1:" + format::general(tier.oversubscription) : "-"});
    std::cout
        << "  tiers (uplinks: bandwidth per direction; oversubscription as uplink : downlink)\n"
        << tt.render("    ");
  }
  std::cout << "  per GPU: NVLink " << format::fixed(spec.nvlink.bandwidth / 1e9, 0) << " GB/s";
  if (spec.fabric.kind != spec::FabricKind::none)
    std::cout << ", NIC " << format::fixed(spec.fabric.nic.bandwidth / 1e9, 0) << " GB/s";
  std::cout << " (per direction)\n  bisection bandwidth: "
            << format::fixed(t.bisection_bandwidth() / 1e12, 2)
            << " TB/s\n  longest route: " << hops << " hops\n";
  if (!spec.faults.empty()) std::cout << "  faults applied: " << spec.faults.size() << "\n";
  return 0;
}

}  // namespace stepsim::cli
