// NCCL's three protocols, as the bandwidth/latency trade-off each makes (NVIDIA/nccl,
// src/include/device.h and src/graph/tuning.cc, the constants NCCL's own tuner uses).
//
// A protocol fixes what a step costs and carries:
//   payload  the share of wire bytes that are data. LL sends 16-byte lines of two 4-byte data words
//            and two flags (1/2); LL128 128-byte lines with one 8-byte flag (120/128); Simple
//            sends raw data and signals each step with a separate flag after a fence (1).
//   step     payload bytes per step of one channel: the protocol's buffer over NCCL_STEPS = 8 slots
//            (Simple 4 MiB, LL 8 lines x 512 threads x 8 steps x 16 B = 512 KiB, LL128 120 x 640
//            x 8 steps x 8 B = 4,915,200 B, times the payload share).
//   sync     the cost of a step's synchronisation beyond the wire's own latency: NCCL's per-hop
//            latency (hwLat) of the protocol less LL's, whose flags travel inside the data and
//            whose step costs the wire latency alone; separately over NVLink and the network.
//   base     the fixed cost of one collective (NCCL's baseLat: launch and setup).
// The flow network times a step as the route's latency (topology.hpp) plus `sync`, and a
// transfer's wire bytes as its payload over `payload`.
// Not modelled: NCCL's per-channel bandwidth caps of LL and LL128, and its LL128 enablement
// rules (NCCL allows LL128 only on some architectures; here it is always offered).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stepsim::net {

enum class Protocol { simple, ll128, ll };

struct ProtocolDef {
  std::string_view name;
  double payload = 1.0;
  double step_bytes = 0.0;
  double nvlink_sync_s = 0.0;
  double net_sync_s = 0.0;
  double base_s = 0.0;
};

const ProtocolDef& protocol_def(Protocol p);
std::optional<Protocol> find_protocol(std::string_view name);
// "auto, simple, ll128, ll" for hints and help.
std::string protocol_names();
inline constexpr Protocol kProtocols[] = {Protocol::simple, Protocol::ll128, Protocol::ll};

}  // namespace stepsim::net
