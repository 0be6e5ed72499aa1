// What `stepsim topo` says of a cluster's topology graph (hw/topology.hpp): its components and
// link groups with counts and notes, each switching tier with its switches, uplink bandwidth (per
// direction) and oversubscription, the per-GPU NVLink and NIC bandwidths, the bisection bandwidth
// and the longest route.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/hw/link_group.hpp"
#include "sim/hw/topology.hpp"

namespace stepsim::analysis {

struct TopologySummary {
  // A component (GPUs, NVSwitches, NICs, leaf and spine switches, aggregation planes) or a link
  // group ("links_..."), by its JSON and CSV word, its name in the text and its notes.
  struct Row {
    std::string word, name;
    int count = 0;
    std::string notes;
    bool link() const { return word.rfind("links_", 0) == 0; }
  };
  struct Tier {
    std::string name;
    int switches = 0;
    double oversubscription = 1.0;
    double uplink_bandwidth = 0.0;  // bytes/s, all its uplinks together
  };
  std::string cluster;
  int nodes = 0;
  spec::Placement placement = spec::Placement::packed;
  std::vector<Row> rows;
  std::vector<Tier> tiers;
  std::array<int, hw::kLinkGroups> groups{};  // links per group
  int switches = 0, planes = 0, pods = 0;
  double nvlink_per_gpu = 0.0, nic_per_gpu = 0.0;  // bytes/s; 0: no fabric
  bool fabric = false;
  double bisection = 0.0;  // bytes/s
  int longest_route_hops = 0;
  int faults = 0;
};

TopologySummary summarize(const hw::Topology& t);

}  // namespace stepsim::analysis
