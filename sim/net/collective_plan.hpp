// Collectives planned as phases of point-to-point transfers, for the flow network to execute.
// The algorithm, protocol, channels and chunks are the tuner's choice (tuner.hpp) for what
// PlanOptions leaves at auto.
//
// A phase is a set of concurrent transfers, repeated `repeat` times back to back (the identical
// steps of a ring); phases run one after another, or chunk by chunk (transfer_dag.hpp). The
// algorithms are one file each under algorithm/, registered in algorithm/registry.cpp;
// `PlanOptions::algorithm` names one or is "auto" (the tuner's pick).
// Bundling: transfers that are translations of one another by whole nodes (same local source
// and destination index, same node offset) are simulated once, with a multiplicity. All-to-alls
// are bundled as their pairs are generated (O(1) each, never held), so a world all-to-all on
// 16,384 GPUs keeps 135,032 transfers (about g²·k for k nodes of g GPUs: one per source and
// destination index and node offset) instead of 268 M.
// Members of a bundle use their own GPU, NIC and access links, but those that leave one leaf share
// its uplinks to the spines. A representative therefore weighs on its leaf-spine links as all the
// members that leave its leaf: core_weight = m/L for m members over the L leaves the group's nodes
// occupy (at the GPU index whose NIC the transfer leaves by; members assumed spread evenly over
// them). Members climb to different spines (the destination's leaf port mod the spines picks
// one), so the representative's route spreads over them: m_s of its m members climb to spine s,
// and the route carries the share m_s/m of its bytes on its leaf's uplink to s and on s's
// downlink to the destination leaf (hw::Topology::route). Each uplink then carries exactly the
// load its members put on it: an oversubscribed fabric slows a bundled collective as it slows the
// unbundled one (a world all-to-all on 64 nodes at 4:1: 42.95 ms both ways; a representative on
// one spine alone made a 512-GPU all-to-all on 2048 nodes 8x too slow). The members of a bundle
// move at one rate, the representative's, where per-spine representatives would each have had
// their own; on the symmetric patterns bundling serves the spines are loaded alike and the two
// agree (tests/run/bundle_step_test.cpp checks bundled against unbundled steps). A bundle spreads
// only where one representative stands for every source leaf's members exactly: groups of whole
// leaves of consecutive nodes, whose leaves all send a bundle's members to the same spines
// (net::bundles_spread). Elsewhere (a group straddling a leaf boundary sends from either side to
// different spines) and on a dual-plane fabric, whose routes already fork over two planes,
// bundles are kept per spine index, each representative on a leaf its members leave from.
// By symmetry every leaf sends what it receives; the representatives, all sent from the group's
// first nodes, load their source leaf's uplinks fully and the destination downlinks only in part,
// which a symmetric pattern does not notice. It ignores the unevenness of collisions, which only
// unbundled runs show. Clusters with faults are never bundled. Between the pods of a clos3 a
// bundle holds only members from one pod to one pod that climb through the same spine index:
// they share their aggregation links exactly, so agg_weight = m, and they spread over the leaves
// of their source pod, core_weight = m·P/L for the P pods the group's nodes occupy: up to 2P·S
// times the bundles that climb within a pod. A world all-to-all across pods slows by the
// aggregation tier's capacity, unbundled exactly, bundled 4 % more on 4 pods of 4 nodes (the
// representatives crowd the first nodes' NICs).
#pragma once

#include <string>
#include <vector>

#include "sim/hw/topology.hpp"
#include "sim/net/transfers.hpp"

namespace stepsim::net {

CollectivePlan plan_collective(CollectiveOp op, double bytes, const std::vector<int>& group,
                               const hw::Topology& topo, const PlanOptions& options = {});

// The plan at `bytes` of the collective `other` plans at another size (the same operation, group,
// topology and options but for those the tuner chooses), as plan_collective() gives it: where the
// algorithm is the same and its transfers bundle alike at every size but for their bytes
// (AlgorithmDef::resize: the direct all-to-all), other's transfers are taken and given the bytes
// of this size, instead of generated and bundled pair by pair again (half the time of
// `stepsim collective` of an all-to-all, which plans each size and its latency at one byte).
// `other` is consumed either way (its transfers freed before a plan made afresh).
CollectivePlan replan(CollectivePlan&& other, double bytes, const std::vector<int>& group,
                      const hw::Topology& topo, const PlanOptions& options = {});

// Transfers the plan of `op` over `group` will hold at once (its largest phase, after bundling),
// estimated from the group's size and node count before planning: for memory checks.
double estimate_transfers(CollectiveOp op, const std::vector<int>& group, const hw::Topology& topo,
                          const PlanOptions& options = {});

// The most elements of the flow network's max-min system a planned transfer's flow holds on a
// fault-free fabric, for memory checks: one per link of a path (PXN's NVLink hop, NIC, access,
// leaf-spine, aggregation and down again: 10; 16 over both planes of a dual-plane fabric); a
// spread's leaf-spine links are one group element a side, like a path's one link (the groups
// themselves, one per leaf and way of spreading, are shared by the bundles that spread alike).
double estimate_route_elements(const hw::Topology& topo);

// A group from text: "world", "node:N", "nodes:A-B", "plane:P", "ranks:A-B" or "A,B,C".
// Throws engine::UserError (located at `where`) on a malformed or out-of-range group.
std::vector<int> parse_group(const std::string& text, const hw::Topology& topo,
                             const std::string& where);

}  // namespace stepsim::net
