// The parallel layout requested by a scenario: degrees, ZeRO stage, pipeline schedule.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace stepsim::workload {

enum class Schedule { none, gpipe, one_f_one_b, interleaved, zb1p, dualpipe, dualpipev };

std::string_view to_string(Schedule s);
std::optional<Schedule> parse_schedule(std::string_view s);

struct ParallelSpec {
  int pp = 1;
  int tp = 1;
  int ep = 1;
  int dp = 0;    // 0: derived as world / (pp * tp)
  int zero = 0;  // ZeRO stage 0..3
  Schedule schedule = Schedule::none;
  int virtual_stages = 1;  // interleaved: model chunks per device
  int comm_sms = 0;        // SMs held by communication kernels while they run
  bool sequence_parallel = false;
  int zero3_prefetch = 1;  // layers gathered ahead under ZeRO-3
  // Transformer layers per stage (empty: balanced). The embedding always sits on the first stage
  // and the head with the loss on the last (the data flow demands it); the first or last stage may
  // hold no layer at all, an embedding-only or head-only stage (Megatron-Core's layout "E|t...|L").
  std::vector<int> stage_layers;
  // The balanced split counts the embedding (head and loss) as one layer of the first (last) stage
  // (Megatron's --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split).
  bool account_embedding = false;
  bool account_head = false;
};

}  // namespace stepsim::workload
