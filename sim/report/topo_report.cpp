#include "sim/report/topo_report.hpp"

#include <sstream>

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

using Row = analysis::TopologySummary::Row;
using Tier = analysis::TopologySummary::Tier;

std::string topo_text(const analysis::TopologySummary& s) {
  std::ostringstream o;
  o << s.cluster << "\n";
  if (s.placement != spec::Placement::packed)
    o << "  nodes placed " << spec::kPlacements.phrase(s.placement)
      << " (placement: " << spec::kPlacements.word(s.placement) << ")\n";
  format::TextTable tab({"component", "count", "notes"});
  tab.left_align_from(2);
  for (const Row& r : s.rows) tab.row({r.name, std::to_string(r.count), r.notes});
  o << tab.render();
  if (!s.tiers.empty()) {
    format::TextTable tt({"tier", "switches", "uplinks", "oversubscription"});
    for (const Tier& tier : s.tiers)
      tt.row({tier.name, std::to_string(tier.switches),
              tier.uplink_bandwidth > 0.0 ? format::fixed(tier.uplink_bandwidth / 1e12, 1) + " TB/s"
                                          : "-",
              tier.uplink_bandwidth > 0.0 ? "1:" + format::general(tier.oversubscription) : "-"});
    o << "  tiers (uplinks: bandwidth per direction; oversubscription as uplink : downlink)\n"
      << tt.render("    ");
  }
  o << "  per GPU: NVLink " << format::fixed(s.nvlink_per_gpu / 1e9, 0) << " GB/s";
  if (s.fabric) o << ", NIC " << format::fixed(s.nic_per_gpu / 1e9, 0) << " GB/s";
  o << " (per direction)\n  bisection bandwidth: " << format::fixed(s.bisection / 1e12, 2)
    << " TB/s\n  longest route: " << s.longest_route_hops << " hops\n";
  if (s.faults > 0) o << "  faults applied: " << s.faults << "\n";
  return o.str();
}

std::string topo_json(const analysis::TopologySummary& s) {
  format::JsonWriter w;
  w.begin_object();
  w.field("cluster", s.cluster);
  w.field("nodes", s.nodes);
  w.field("placement", spec::kPlacements.word(s.placement));
  for (const Row& r : s.rows)
    if (!r.link()) w.field(r.word, r.count);
  w.field("switches", s.switches);
  w.field("planes", s.planes);
  w.field("pods", s.pods);
  w.key("tiers").begin_array();
  for (const Tier& tier : s.tiers) {
    w.begin_object();
    w.field("tier", tier.name).field("switches", tier.switches);
    w.field("oversubscription_ratio", tier.oversubscription);
    w.field("uplink_bandwidth_gb_per_s", tier.uplink_bandwidth / 1e9);
    w.end_object();
  }
  w.end_array();
  w.key("links").begin_object();
  for (int g = 0; g < hw::kLinkGroups; ++g)
    w.field(hw::kLinkGroupNames.word(static_cast<hw::LinkGroup>(g)), s.groups[g]);
  w.end_object();
  w.field("nvlink_gb_per_s_per_gpu", s.nvlink_per_gpu / 1e9);
  w.field("nic_gb_per_s_per_gpu", s.nic_per_gpu / 1e9);
  w.field("bisection_gb_per_s", s.bisection / 1e9);
  w.field("longest_route_hops", s.longest_route_hops);
  w.field("faults", s.faults);
  w.end_object();
  return w.str();
}

std::string topo_csv(const analysis::TopologySummary& s) {
  // One row per component, link group, tier and figure.
  format::CsvTable c({"section", "name", "count", "bandwidth_gb_per_s", "oversubscription_ratio"});
  for (const Row& r : s.rows) {
    const bool link = r.link();
    c.row().text(link ? "links" : "components").text(link ? r.word.substr(6) : r.word);
    c.integer(r.count).empty(2);
  }
  for (const Tier& tier : s.tiers) {
    c.row().text("tiers").text(tier.name).integer(tier.switches);
    if (tier.uplink_bandwidth > 0.0)
      c.number(tier.uplink_bandwidth / 1e9).number(tier.oversubscription);
    else
      c.empty(2);
  }
  c.row().text("per_gpu").text("nvlink").empty().number(s.nvlink_per_gpu / 1e9).empty();
  c.row().text("per_gpu").text("nic").empty().number(s.nic_per_gpu / 1e9).empty();
  c.row().text("fabric").text("bisection").empty().number(s.bisection / 1e9).empty();
  c.row().text("fabric").text("longest_route_hops").integer(s.longest_route_hops).empty(2);
  c.row().text("fabric").text("faults").integer(s.faults);
  c.empty(2);
  return c.str();
}

}  // namespace stepsim::report
