// Random faults for stress campaigns (`stepsim stress`): what the user asks for, as
// `--fault KIND[:COUNT][@LOW[-HIGH]]`, and the faults of each trial.
//
// Each draw picks COUNT distinct components of its kind, uniformly among the cluster's:
//   nic_down, nic_degrade     a NIC: (node, nic), nodes x GPUs per node of them
//   link_down, link_degrade   a leaf-spine link: (plane, leaf, spine)
//   switch_down               a switch: (plane, leaf) or (plane, spine), leaves and spines alike
//   node_down                 a node
//   nvlink_degrade, straggler a GPU
// A degrade kind's bandwidth factor and a straggler's slowdown are uniform in [LOW, HIGH], or
// LOW itself without HIGH. Without @: factor 0.5 (a port trained down to half its lanes) and
// slowdown uniform in [1.1, 2] — stress choices, not measurements; the campaign prints them.
// Draws of different kinds may hit the same place (a NIC down on a straggler's node).
//
// Randomness: splitmix64, each trial from its own state splitmix64(splitmix64(seed) xor trial)
// (distinct for every trial of a seed: splitmix64 is a bijection), draw by draw in order, repeats
// rejected. A trial is drawn alone, when it is simulated or printed, never all of them up front:
// a campaign holds one trial's faults per thread, whatever its trials and counts. The same seed
// gives the same trials on any machine, thread count or MPI layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/spec/cluster.hpp"

namespace stepsim::search {

struct FaultDraw {
  spec::FaultKind kind = spec::FaultKind::nic_down;
  int count = 1;
  double low = 0.0, high = 0.0;    // the factor's or slowdown's range (equal: a fixed value)
  std::string text;                // as given on the command line
  std::string option = "--fault";  // the option that gave it, for messages
};

// Parses "nic_down", "link_degrade:2@0.25", "straggler:4@1.2-1.8"; throws engine::UserError
// naming `OPTION TEXT` with a hint.
FaultDraw parse_fault_draw(const std::string& text, const std::string& option = "--fault");

// Components of the draw's kind the cluster has (NICs, links, switches, nodes or GPUs).
long long components(const FaultDraw& d, const spec::ClusterSpec& c);

// Throws engine::UserError when the cluster has fewer components of the kind than the count
// (none at all: a link fault on a single node).
void check_draw(const FaultDraw& d, const spec::ClusterSpec& c);

// Trial `trial`'s faults (0 the first): every draw's components, in draw order.
std::vector<spec::FaultSpec> draw_trial(const std::vector<FaultDraw>& draws,
                                        const spec::ClusterSpec& c, long long trial,
                                        std::uint64_t seed);

// The draw's value range for people: "factor 0.5", "slowdown 1.1-2"; "" for down kinds.
std::string value_text(const FaultDraw& d);

}  // namespace stepsim::search
