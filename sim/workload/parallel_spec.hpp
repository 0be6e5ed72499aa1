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
  int dp = 0;                   // 0: derived as world / (pp * tp)
  int zero = 0;                 // ZeRO stage 0..3
  Schedule schedule = Schedule::none;
  int virtual_stages = 1;       // interleaved: model chunks per device
  int comm_sms = 0;             // SMs held by communication kernels while they run
  bool sequence_parallel = false;
  int zero3_prefetch = 1;       // layers gathered ahead under ZeRO-3
  std::vector<int> stage_layers;  // explicit layers per stage (empty: balanced)
};

}  // namespace stepsim::workload
