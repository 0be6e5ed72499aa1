// The parallel layout requested by a scenario: degrees, ZeRO stage, pipeline schedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/spec/names.hpp"
#include "sim/spec/zero3.hpp"

namespace stepsim::spec {

// A pipeline schedule, by its word: the schedule registry (workload/schedule/registry.cpp) says
// what each word means, so adding a schedule touches no enum. A scenario may spell any word; the
// layout (workload::make_plan) refuses one the registry lacks. The default is "none" (no
// pipeline).
class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(std::string word) : word_(std::move(word)) {}
  const std::string& word() const { return word_; }
  bool is_none() const { return word_ == "none"; }
  friend bool operator==(const Schedule&, const Schedule&) = default;

 private:
  std::string word_ = "none";
};

// How context parallelism runs attention over a sequence split into cp parts (Transformer
// Engine's cp_comm_type; workload/context_parallel.hpp has each one's schedule and closed form):
// p2p, ring attention (K and V passed round the ring); all_gather (K and V gathered, dK and dV
// reduce-scattered); a2a, DeepSpeed-Ulysses (all-to-all from sequence to heads and back);
// a2a_p2p, all-to-all inside a node and a ring across nodes.
enum class CpAlgorithm : std::uint8_t { p2p, all_gather, a2a, a2a_p2p };
inline constexpr Names<CpAlgorithm, 4> kCpAlgorithms{{{"p2p", "ring attention (p2p)"},
                                                      {"all_gather", "all-gather KV"},
                                                      {"a2a", "all-to-all (Ulysses)"},
                                                      {"a2a+p2p", "all-to-all + ring"}}};

struct ParallelSpec {
  int pp = 1;
  int tp = 1;
  int ep = 1;
  int cp = 1;  // context parallelism: each sequence split over cp GPUs
  CpAlgorithm cp_algorithm = CpAlgorithm::p2p;
  int dp = 0;              // 0: derived as world / (pp * tp * cp)
  int zero = 0;            // ZeRO stage 0..3
  Schedule schedule;       // none
  int virtual_stages = 1;  // interleaved: model chunks per device
  int comm_sms = 0;        // SMs held by communication kernels while they run
  bool sequence_parallel = false;
  Zero3Spec zero3;  // how ZeRO-3 runs (zero3.hpp)
  // Transformer layers per stage (empty: balanced). The embedding always sits on the first stage
  // and the head with the loss on the last (the data flow demands it); the first or last stage may
  // hold no layer at all, an embedding-only or head-only stage (Megatron-Core's layout "E|t...|L").
  std::vector<int> stage_layers;
  // The balanced split counts the embedding (head and loss) as one layer of the first (last) stage
  // (Megatron's --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split).
  bool account_embedding = false;
  bool account_head = false;
};

}  // namespace stepsim::spec
