// Stress applied to a cluster: a fault is of a kind, one row of the table below, which says what
// it hits (a NIC, a leaf-spine link, a switch, a node, a GPU's NVLink port, a GPU) and what it
// does there (takes it down, degrades its bandwidth by a factor, or slows its compute). Everything
// else follows from those two: the keys a scenario gives it (config/load_hardware.cpp), the
// components a stress campaign draws it among (search/fault_draw.hpp), the links it acts on
// (hw/topology.cpp), and how reports and --help name it. Adding a kind of an existing target and
// effect is one row here.
//
// Indices are 0-based; `nic` is a GPU's index in its node (NIC i belongs to GPU i); `gpu` is a
// global GPU rank; `plane`, `leaf`, `spine` are plane-local switch numbers (a rail-optimized
// fabric is one plane).
//  nic {node, nic}: the NIC and its links
//  link {plane, leaf, spine}: one leaf-spine link, both directions
//  switch {plane, leaf} or {plane, spine}: every link of one switch
//  node {node}: every link of the node's GPUs (NVLink and NICs): the node is gone
//  nvlink {gpu}: one GPU's NVLink port, both directions
//  gpu {gpu}: the GPU's compute
// and a degrade takes {factor} (of the bandwidth, in (0, 1]), a slowdown {slowdown} (>= 1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/spec/names.hpp"

namespace stepsim::spec {

enum class FaultTarget : std::uint8_t { nic, link, fabric_switch, node, nvlink, gpu };
enum class FaultEffect : std::uint8_t { down, degrade, slowdown };

enum class FaultKind {
  nic_down,
  nic_degrade,
  link_down,
  link_degrade,
  nvlink_degrade,
  straggler,
  switch_down,
  node_down
};
// A fault's words; reports describe each with its place (fault_text).
inline constexpr Names<FaultKind, 8> kFaultKinds{{{"nic_down"},
                                                  {"nic_degrade"},
                                                  {"link_down"},
                                                  {"link_degrade"},
                                                  {"nvlink_degrade"},
                                                  {"straggler"},
                                                  {"switch_down"},
                                                  {"node_down"}}};

struct FaultKindDef {
  FaultTarget target;
  FaultEffect effect;
};
// Per FaultKind, in its order.
inline constexpr FaultKindDef kFaultKindDefs[] = {
    {FaultTarget::nic, FaultEffect::down},           {FaultTarget::nic, FaultEffect::degrade},
    {FaultTarget::link, FaultEffect::down},          {FaultTarget::link, FaultEffect::degrade},
    {FaultTarget::nvlink, FaultEffect::degrade},     {FaultTarget::gpu, FaultEffect::slowdown},
    {FaultTarget::fabric_switch, FaultEffect::down}, {FaultTarget::node, FaultEffect::down}};
static_assert(std::size(kFaultKindDefs) == std::size(kFaultKinds.names),
              "a fault kind needs its row of target and effect");

constexpr FaultTarget target_of(FaultKind k) {
  return kFaultKindDefs[static_cast<int>(k)].target;
}
constexpr FaultEffect effect_of(FaultKind k) {
  return kFaultKindDefs[static_cast<int>(k)].effect;
}

// What a target is, for people: "a NIC", "a leaf-spine link", ...
std::string_view target_phrase(FaultTarget t);
// The kinds for --help: "nic_down, nic_degrade (a NIC); link_down, ... (a GPU)".
std::string fault_kinds_help();

struct FaultSpec {
  FaultKind kind = FaultKind::nic_down;
  int node = -1, nic = -1;
  int plane = -1, leaf = -1, spine = -1;
  int gpu = -1;
  double factor = 1.0;  // bandwidth multiplier (degrade) or slowdown (straggler)

  FaultTarget target() const { return target_of(kind); }
  FaultEffect effect() const { return effect_of(kind); }
  // The node a NIC, node or NVLink fault acts on: all of it, since PXN lets a node's traffic leave
  // by any of its NICs; -1 for the other targets.
  int node_hit(int gpus_per_node) const {
    if (target() == FaultTarget::nic || target() == FaultTarget::node) return node;
    return target() == FaultTarget::nvlink ? gpu / gpus_per_node : -1;
  }
  bool on_leaf_spine_link() const { return target() == FaultTarget::link; }
  bool leaf_switch() const { return target() == FaultTarget::fabric_switch && leaf >= 0; }
  bool spine_switch() const { return target() == FaultTarget::fabric_switch && spine >= 0; }
};

// The component a fault hits: "NIC 3 of node 12", "plane 0 leaf 3 - spine 1 link", "plane 1
// spine 2", "node 7", "GPU 5's NVLink", "GPU 5".
std::string fault_place(const FaultSpec& f);
// The fault for people: its place and what happened to it: "NIC 3 of node 12 down", "GPU 5
// computes 1.30x slower", "plane 0 leaf 2 - spine 1 link at 0.25x bandwidth".
std::string fault_text(const FaultSpec& f);
// The fault as a scenario's `faults:` entry reads it, in YAML flow style: "{kind: nic_down, node:
// 12, nic: 3}", "{kind: straggler, gpu: 5, slowdown: 1.3}"; the factor in the shortest text that
// reads back to the same double.
std::string fault_yaml(const FaultSpec& f);
// The fault's indices as (key, value) pairs, in the order fault_yaml writes them (node, nic,
// plane, leaf, spine, gpu: those its target has).
std::vector<std::pair<std::string, int>> fault_indices(const FaultSpec& f);

}  // namespace stepsim::spec
