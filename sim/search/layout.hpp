// A candidate layout of a layout search (stepsim plan): the parallelism and training keys a
// scenario sets, as plain values, and what it means for the base scenario.
//
// ZeRO-3 that gathers each layer's parameters once per step and keeps them through every
// micro-batch (FSDP without resharding between micro-batches) holds whole parameters and
// gradients for the step and moves one gather and one reduce-scatter per step: ZeRO-1's memory
// and traffic in this model (memory.hpp), so the search counts it there and does not enumerate it
// apart; "ZeRO-3" in a plan always re-gathers per micro-batch (as DeepSpeed and FSDP's default).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/spec/scenario.hpp"

namespace stepsim::search {

// A recomputation choice: none, selective, full, or a list of ops the model file names.
struct RecomputeOption {
  std::string name;
  spec::RecomputeSpec spec;
};

struct Layout {
  int tp = 1, pp = 1, dp = 1, ep = 1, cp = 1;
  spec::CpAlgorithm cp_algorithm = spec::CpAlgorithm::p2p;
  bool sequence_parallel = false;
  int zero = 0;
  spec::Schedule schedule;
  int virtual_stages = 1;
  int micro_batch = 1;
  int recompute = 0;  // index into the search's recompute options
  int comm_sms = 0;
  bool account = false;  // the embedding and the head count as a layer each in the stage split
  friend bool operator==(const Layout&, const Layout&) = default;
};

// The base scenario with the layout's keys set (an explicit stage split of the base is dropped:
// the layout's split is balanced, with or without the embedding and head accounted).
spec::ScenarioSpec apply(const spec::ScenarioSpec& base, const Layout& l,
                         const std::vector<RecomputeOption>& recomputes);
// The same in place: `s` is the base scenario or one that apply_to has set before (a search sets
// every layout's keys into one copy per thread instead of copying the scenario per layout).
void apply_to(spec::ScenarioSpec& s, const Layout& l,
              const std::vector<RecomputeOption>& recomputes);

// One line, e.g. "TP1 PP16 DP128 EP64 ZeRO-1 dualpipe mb1 recompute=deepseek sms=20".
std::string describe(const Layout& l, const std::vector<RecomputeOption>& recomputes);
// A scenario's own layout in the same words, with its explicit stage split where it has one.
std::string describe(const spec::ScenarioSpec& s, const std::vector<RecomputeOption>& recomputes);

// The --set arguments that turn the base scenario into this layout, for `stepsim run` (no
// cp_algorithm without context parallelism: it would do nothing).
std::vector<std::string> set_arguments(const Layout& l,
                                       const std::vector<RecomputeOption>& recomputes);
// Only those of them whose value differs from `base`'s, and the clearing of an explicit stage split
// of `base` (the layout's split is balanced or accounted): the shortest --set list from `base`.
std::vector<std::string> changed_arguments(const spec::ScenarioSpec& base, const Layout& l,
                                           const std::vector<RecomputeOption>& recomputes);
// The scenario's own layout as the search enumerates it, or none where the search cannot: an
// explicit stage split, the embedding accounted without the head (or the reverse), or a
// recomputation that is none of the options.
std::optional<Layout> layout_of(const spec::ScenarioSpec& s,
                                const std::vector<RecomputeOption>& recomputes);

// The layout's family: its structure without the degrees, e.g. "dualpipe + EP + ZeRO-1",
// "ZeRO-3 + TP", "1f1b + TP + CP all-gather KV + ZeRO-1", "plain data parallelism" (no
// pipeline, TP, CP or EP, ZeRO-0).
std::string family(const Layout& l);

}  // namespace stepsim::search
