// Links as an engineer names them, the one vocabulary for links in every output (topo, the
// collective's bottleneck, run's shared-link summary, the report's link chart): NVLink (GPU <->
// NVSwitch ports, both directions), NIC (a GPU's NIC port and the NIC's cable to its leaf, both
// directions), leaf uplinks (leaf -> spine), spine downlinks (spine -> leaf), and a clos3's pod
// uplinks (spine -> aggregation plane) and pod downlinks. The word is for JSON and CSV, the
// phrase for text.
#pragma once

#include <string_view>

#include "sim/hw/topology.hpp"
#include "sim/spec/names.hpp"

namespace stepsim::hw {

enum class LinkGroup { nvlink, nic, leaf_uplink, spine_downlink, pod_uplink, pod_downlink };
inline constexpr int kLinkGroups = 6;
inline constexpr spec::Names<LinkGroup, kLinkGroups> kLinkGroupNames{{
    {"nvlink", "NVLink"},
    {"nic", "NIC"},
    {"leaf_uplink", "leaf uplinks"},
    {"spine_downlink", "spine downlinks"},
    {"pod_uplink", "pod uplinks"},
    {"pod_downlink", "pod downlinks"},
}};
// The phrase: "NVLink", "leaf uplinks".
inline std::string_view to_string(LinkGroup g) {
  return kLinkGroupNames.phrase(g);
}
LinkGroup link_group(const Topology& topo, int link);

}  // namespace stepsim::hw
