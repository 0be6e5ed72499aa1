#include "sim/analysis/link_usage.hpp"

#include <algorithm>
#include <cmath>

namespace stepsim::analysis {

double LinkUsage::mean(hw::LinkGroup g) const {
  const int i = static_cast<int>(g);
  return capacity[i] > 0.0 && step_s > 0.0 ? bytes[i] / (capacity[i] * step_s) : 0.0;
}

double LinkUsage::peak(hw::LinkGroup g) const {
  const auto& u = utilisation[static_cast<int>(g)];
  return u.empty() ? 0.0 : *std::max_element(u.begin(), u.end());
}

LinkUsage link_usage(const exec::StepGraph& g, const exec::StepTimeline& t,
                     const hw::Topology& topo, int bins, int busiest) {
  LinkUsage u;
  u.step_s = t.step.seconds();
  const auto& links = topo.links();
  for (std::size_t l = 0; l < links.size(); ++l) {
    const int grp = static_cast<int>(hw::link_group(topo, static_cast<int>(l)));
    ++u.links[grp];
    if (links[l].up) u.capacity[grp] += links[l].bandwidth;
  }
  u.live = !g.link_capacity.empty() && g.link_class_of.size() == links.size() && u.step_s > 0.0;
  if (!u.live || bins <= 0) return u;
  u.bin_s = u.step_s / bins;
  for (auto& v : u.utilisation) v.assign(bins, 0.0);

  // Members of each class of links, per group; and each profile's bytes per group.
  const std::size_t classes = g.link_capacity.size();
  std::vector<std::array<int, hw::kLinkGroups>> members(classes,
                                                        std::array<int, hw::kLinkGroups>{});
  std::vector<std::array<int, hw::kLinkGroups>> first(classes, {-1, -1, -1, -1, -1, -1});
  for (std::size_t l = 0; l < links.size(); ++l) {
    const int c = g.link_class_of[l];
    if (c < 0) continue;
    const int grp = static_cast<int>(hw::link_group(topo, static_cast<int>(l)));
    ++members[c][grp];
    if (first[c][grp] < 0) first[c][grp] = static_cast<int>(l);
  }
  std::vector<std::array<double, hw::kLinkGroups>> per_group(g.loads.size(),
                                                             std::array<double, hw::kLinkGroups>{});
  for (std::size_t p = 0; p < g.loads.size(); ++p)
    for (const net::LinkLoad& l : g.loads[p])
      for (int grp = 0; grp < hw::kLinkGroups; ++grp)
        per_group[p][grp] += l.bytes * members[l.link][grp];

  std::vector<double> class_bytes(classes, 0.0);
  std::array<std::vector<double>, hw::kLinkGroups> binned;
  for (auto& v : binned) v.assign(bins, 0.0);
  for (const exec::PieceRun& piece : t.pieces) {
    const int p = g.shapes[g.ops[piece.op].load][piece.piece].profile;
    if (p < 0) continue;
    for (const net::LinkLoad& l : g.loads[p]) class_bytes[l.link] += l.bytes;
    const double a = piece.start.seconds(), b = piece.end.seconds();
    const int first_bin = std::min(bins - 1, static_cast<int>(a / u.bin_s));
    const int last_bin = std::min(bins - 1, static_cast<int>(b / u.bin_s));
    for (int k = first_bin; k <= last_bin; ++k) {
      const double share =
          b > a ? (std::min(b, (k + 1) * u.bin_s) - std::max(a, k * u.bin_s)) / (b - a) : 1.0;
      if (share <= 0.0) continue;
      for (int grp = 0; grp < hw::kLinkGroups; ++grp) binned[grp][k] += per_group[p][grp] * share;
    }
  }
  for (int grp = 0; grp < hw::kLinkGroups; ++grp) {
    for (int k = 0; k < bins; ++k) {
      u.bytes[grp] += binned[grp][k];
      if (u.capacity[grp] > 0.0)
        u.utilisation[grp][k] = binned[grp][k] / (u.capacity[grp] * u.bin_s);
    }
  }

  // One entry per class and group, then entries of one group that carried the same bytes at
  // the same capacity merged (classes differ in which ops load them, not in how much).
  for (std::size_t c = 0; c < classes; ++c) {
    if (class_bytes[c] <= 0.0 || g.link_capacity[c] <= 0.0) continue;
    for (int grp = 0; grp < hw::kLinkGroups; ++grp) {
      if (first[c][grp] < 0) continue;
      BusyLink b;
      b.link = first[c][grp];
      b.group = static_cast<hw::LinkGroup>(grp);
      b.alike = members[c][grp];
      b.bytes = class_bytes[c];
      b.utilisation = class_bytes[c] / (g.link_capacity[c] * u.step_s);
      u.busiest.push_back(b);
    }
  }
  auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(a, b); };
  std::sort(u.busiest.begin(), u.busiest.end(), [](const BusyLink& x, const BusyLink& y) {
    if (x.group != y.group) return x.group < y.group;
    if (x.utilisation != y.utilisation) return x.utilisation < y.utilisation;
    return x.link < y.link;
  });
  std::vector<BusyLink> merged;
  for (const BusyLink& b : u.busiest) {
    BusyLink* m = merged.empty() ? nullptr : &merged.back();
    if (m && m->group == b.group && near(m->utilisation, b.utilisation) &&
        near(m->bytes, b.bytes)) {
      m->alike += b.alike;
      m->link = std::min(m->link, b.link);
      continue;
    }
    merged.push_back(b);
  }
  std::sort(merged.begin(), merged.end(), [](const BusyLink& x, const BusyLink& y) {
    return x.utilisation != y.utilisation ? x.utilisation > y.utilisation : x.link < y.link;
  });
  u.busiest = std::move(merged);
  if (static_cast<int>(u.busiest.size()) > busiest) u.busiest.resize(std::max(busiest, 0));
  for (BusyLink& b : u.busiest) b.name = topo.link_name(b.link);
  return u;
}

}  // namespace stepsim::analysis
