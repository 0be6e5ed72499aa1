#include "sim/net/protocol.hpp"

namespace stepsim::net {

namespace {

constexpr double kUs = 1e-6;
// NCCL src/graph/tuning.cc (v2.23+): hwLat[NVLINK|NET][Ring][LL, LL128, Simple] =
// {0.6, 1.9, 3.4} and {2.7, 4.0, 14.0} us; baseLat[Ring] = {6.6, 14.0, 8.4} us.
constexpr ProtocolDef kSimple{.name = "simple",
                              .payload = 1.0,
                              .step_bytes = 4194304.0 / 8,
                              .nvlink_sync_s = (3.4 - 0.6) * kUs,
                              .net_sync_s = (14.0 - 2.7) * kUs,
                              .base_s = 8.4 * kUs};
constexpr ProtocolDef kLl128{.name = "ll128",
                             .payload = 120.0 / 128.0,
                             .step_bytes = 4915200.0 / 8 * 120.0 / 128.0,
                             .nvlink_sync_s = (1.9 - 0.6) * kUs,
                             .net_sync_s = (4.0 - 2.7) * kUs,
                             .base_s = 14.0 * kUs};
constexpr ProtocolDef kLl{
    .name = "ll", .payload = 0.5, .step_bytes = 524288.0 / 8 * 0.5, .base_s = 6.6 * kUs};

}  // namespace

const ProtocolDef& protocol_def(Protocol p) {
  switch (p) {
    case Protocol::ll128:
      return kLl128;
    case Protocol::ll:
      return kLl;
    case Protocol::simple:
      break;
  }
  return kSimple;
}

std::optional<Protocol> find_protocol(std::string_view name) {
  for (Protocol p : kProtocols)
    if (protocol_def(p).name == name) return p;
  return std::nullopt;
}

std::string protocol_names() {
  std::string s = "auto";
  for (Protocol p : kProtocols) s += ", " + std::string(protocol_def(p).name);
  return s;
}

}  // namespace stepsim::net
