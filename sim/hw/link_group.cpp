#include "sim/hw/link_group.hpp"

namespace stepsim::hw {

LinkGroup link_group(const Topology& topo, int link) {
  const Link& l = topo.links()[link];
  switch (l.cls) {
    case LinkClass::nvlink:
      return LinkGroup::nvlink;
    case LinkClass::nic:
    case LinkClass::ib_access:
      return LinkGroup::nic;
    case LinkClass::ib_agg:
      return topo.kind_of(l.from) == VertexKind::spine ? LinkGroup::pod_uplink
                                                       : LinkGroup::pod_downlink;
    case LinkClass::ib_core:
      break;
  }
  return topo.kind_of(l.from) == VertexKind::leaf ? LinkGroup::leaf_uplink
                                                  : LinkGroup::spine_downlink;
}

}  // namespace stepsim::hw
