#include <array>
#include <sstream>

#include "sim/analysis/link_usage.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/output_file.hpp"
#include "sim/cli/scenarios.hpp"
#include "sim/config/load.hpp"
#include "sim/format/csv_table.hpp"
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
  std::string max_memory_text, output;
  add_common_options(opts, sets);
  add_output_options(opts, output);
  add_max_memory_option(opts, max_memory_text);
  const po::variables_map vm = parse_args(args, opts, files);
  if (print_help(vm, opts)) return 0;
  if (files.size() != 1)
    throw engine::UserError({"<command line>", 0, 0}, "topo needs exactly one cluster file",
                            "stepsim topo topologies/h800-256x8-mpft.yaml");
  const double max_memory = max_memory_bytes(max_memory_text);
  const OutputFormat out_format = output_format(vm);
  OutputSet outputs;
  if (vm.count("output")) outputs.add("--output", output);
  const spec::ClusterSpec spec = load_cluster_checked(files[0], parse_overrides(sets), outputs);
  check_memory(hw::Topology::estimate_bytes(spec), max_memory,
               files[0] + ": building this topology", "describe a smaller cluster");
  const hw::Topology t(spec);
  const auto v = t.vertex_counts();
  using hw::LinkGroup;
  std::array<int, hw::kLinkGroups> groups{};
  for (int i = 0; i < static_cast<int>(t.links().size()); ++i)
    ++groups[static_cast<int>(hw::link_group(t, i))];
  const int hops = t.longest_route_hops();
  using hw::LinkClass;
  using hw::VertexKind;
  auto vc = [&](VertexKind k) { return v[static_cast<int>(k)]; };
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
  const double nic_per_gpu =
      spec.fabric.kind == spec::FabricKind::none ? 0.0 : spec.fabric.nic.bandwidth;
  // The components, by the JSON and CSV word, the text's name and its notes.
  struct Row {
    std::string word, name;
    int count = 0;
    std::string notes;
  };
  const bool dual = spec.fabric.kind == spec::FabricKind::dual_plane;
  std::vector<Row> rows = {
      {"gpus", "GPUs", t.gpus(),
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
    rows.push_back({"aggregation_planes", "aggregation planes", vc(VertexKind::agg),
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
    if (groups[g] == 0 && g >= static_cast<int>(LinkGroup::pod_uplink)) continue;
    rows.push_back({"links_" + std::string(hw::kLinkGroupNames.word(group)),
                    "links " + std::string(hw::to_string(group)), groups[g], link_notes[g]});
  }

  std::string text;
  if (out_format == OutputFormat::json) {
    format::JsonWriter w;
    w.begin_object();
    w.field("cluster", spec.name);
    w.field("nodes", spec.nodes);
    w.field("placement", spec::kPlacements.word(spec.placement));
    for (const Row& r : rows)
      if (r.word.rfind("links_", 0) != 0) w.field(r.word, r.count);
    w.field("switches", vc(VertexKind::leaf) + vc(VertexKind::spine));
    w.field("planes", t.planes());
    w.field("pods", t.pods());
    w.key("tiers").begin_array();
    for (const Tier& tier : tiers) {
      w.begin_object();
      w.field("tier", tier.name).field("switches", tier.switches);
      w.field("oversubscription", tier.oversubscription);
      w.field("uplink_bandwidth_gbps", tier.uplink_bandwidth / 1e9);
      w.end_object();
    }
    w.end_array();
    w.key("links").begin_object();
    for (int g = 0; g < hw::kLinkGroups; ++g)
      w.field(hw::kLinkGroupNames.word(static_cast<LinkGroup>(g)), groups[g]);
    w.end_object();
    w.field("nvlink_gbps_per_gpu", spec.nvlink.bandwidth / 1e9);
    w.field("nic_gbps_per_gpu", nic_per_gpu / 1e9);
    w.field("bisection_gbps", t.bisection_bandwidth() / 1e9);
    w.field("longest_route_hops", hops);
    w.field("faults", static_cast<int>(spec.faults.size()));
    w.end_object();
    text = w.str();
  } else if (out_format == OutputFormat::csv) {
    // One row per component, link group, tier and figure.
    format::CsvTable c({"section", "name", "count", "bandwidth_gbps", "oversubscription"});
    for (const Row& r : rows) {
      const bool link = r.word.rfind("links_", 0) == 0;
      c.row().text(link ? "links" : "components").text(link ? r.word.substr(6) : r.word);
      c.integer(r.count).empty(2);
    }
    for (const Tier& tier : tiers) {
      c.row().text("tiers").text(tier.name).integer(tier.switches);
      if (tier.uplink_bandwidth > 0.0)
        c.number(tier.uplink_bandwidth / 1e9).number(tier.oversubscription);
      else
        c.empty(2);
    }
    c.row().text("per_gpu").text("nvlink").empty().number(spec.nvlink.bandwidth / 1e9).empty();
    c.row().text("per_gpu").text("nic").empty().number(nic_per_gpu / 1e9).empty();
    c.row().text("fabric").text("bisection").empty().number(t.bisection_bandwidth() / 1e9).empty();
    c.row().text("fabric").text("longest_route_hops").integer(hops).empty(2);
    c.row().text("fabric").text("faults").integer(static_cast<long long>(spec.faults.size()));
    c.empty(2);
    text = c.str();
  } else {
    std::ostringstream o;
    o << spec.name << "\n";
    if (spec.placement != spec::Placement::packed)
      o << "  nodes placed " << spec::kPlacements.phrase(spec.placement)
        << " (placement: " << spec::kPlacements.word(spec.placement) << ")\n";
    format::TextTable tab({"component", "count", "notes"});
    tab.left_align_from(2);
    for (const Row& r : rows) tab.row({r.name, std::to_string(r.count), r.notes});
    o << tab.render();
    if (!tiers.empty()) {
      format::TextTable tt({"tier", "switches", "uplinks", "oversubscription"});
      for (const Tier& tier : tiers)
        tt.row({tier.name, std::to_string(tier.switches),
                tier.uplink_bandwidth > 0.0
                    ? format::fixed(tier.uplink_bandwidth / 1e12, 1) + " TB/s"
                    : "-",
                tier.uplink_bandwidth > 0.0 ? "1:" + format::general(tier.oversubscription) : "-"});
      o << "  tiers (uplinks: bandwidth per direction; oversubscription as uplink : downlink)\n"
        << tt.render("    ");
    }
    o << "  per GPU: NVLink " << format::fixed(spec.nvlink.bandwidth / 1e9, 0) << " GB/s";
    if (spec.fabric.kind != spec::FabricKind::none)
      o << ", NIC " << format::fixed(nic_per_gpu / 1e9, 0) << " GB/s";
    o << " (per direction)\n  bisection bandwidth: "
      << format::fixed(t.bisection_bandwidth() / 1e12, 2) << " TB/s\n  longest route: " << hops
      << " hops\n";
    if (!spec.faults.empty()) o << "  faults applied: " << spec.faults.size() << "\n";
    text = o.str();
  }
  outputs.finish_report(output, text);
  return 0;
}

}  // namespace stepsim::cli
