// How busy the fabric's links were over a simulated step, from the live fabric
// (exec/step_executor.hpp): the executor records when each piece of a communication op's run
// began and ended (StepTimeline::pieces), and each piece's load profile says how many bytes it
// moved over every link (StepGraph::loads, links merged into classes that every profile loads
// alike). Spreading a piece's bytes evenly over the time it actually ran gives every link's bytes
// per time bin. The bytes are wire bytes, what occupies the links: the data over the protocol's
// payload share (an LL all-reduce loads its links twice its data) and, for DeepEP's NVLink copies,
// over the share of the link's rate its kernels reach (net/algorithm/deepep.cpp). Over a group of
// links,
//   utilisation(bin) = Σ_links bytes(link, bin) / (Σ_links capacity(link) · bin width),
// the mean over the group's links (a failed link has no capacity and carries nothing).
// Groups, as an engineer names them: NVLink (GPU <-> NVSwitch ports, both directions), NIC (a
// GPU's NIC port and the NIC's cable to its leaf, both directions), leaf uplinks (leaf -> spine)
// and spine downlinks (spine -> leaf). The busiest links are ranked by their mean utilisation over
// the step; links the step loads alike (one merged class, e.g. every GPU's NVLink port in a
// symmetric layout, or classes of one group that carried the same bytes at the same capacity) are
// one entry with how many they are.
// Approximation: within a piece an op's rate is taken as constant; where the fabric slowed it
// part-way through a piece, its bytes are placed slightly differently in time (the totals are
// exact). A bin can therefore read a little above 100%; reports clamp the colour, not the figure.
// At analytic or free network fidelity there is no live fabric, and in a step whose ops load no
// link nothing crossed it: then `live` is false and nothing is binned. Beyond 4 M transfers a
// collective's load is planned bundled (exec/collective_timer.hpp): its members' own GPU and NIC
// links are then not loaded, so those groups read low; the leaf-spine links still carry it all.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/exec/step_executor.hpp"
#include "sim/hw/link_group.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::analysis {

struct BusyLink {
  int link = 0;      // the first of the links alike
  std::string name;  // hw::Topology::link_name
  hw::LinkGroup group = hw::LinkGroup::nvlink;
  int alike = 1;             // links with the same load and capacity (it included)
  double bytes = 0.0;        // each, over the step
  double utilisation = 0.0;  // bytes / (capacity · step)
};

struct LinkUsage {
  bool live = false;
  double step_s = 0.0;
  double bin_s = 0.0;
  std::array<int, hw::kLinkGroups> links{};        // links in each group (failed ones too)
  std::array<double, hw::kLinkGroups> capacity{};  // Σ bytes/s of its live links
  std::array<double, hw::kLinkGroups> bytes{};     // Σ over the step
  std::array<std::vector<double>, hw::kLinkGroups> utilisation;  // per bin
  std::vector<BusyLink> busiest;                                 // highest utilisation first
  double mean(hw::LinkGroup g) const;                            // over the step
  double peak(hw::LinkGroup g) const;                            // the busiest bin
};

// `bins` time bins over [0, step]; the `busiest` most utilised classes of links.
LinkUsage link_usage(const exec::StepGraph& g, const exec::StepTimeline& t,
                     const hw::Topology& topo, int bins, int busiest);

}  // namespace stepsim::analysis
