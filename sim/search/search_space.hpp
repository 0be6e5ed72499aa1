// The layouts a layout search enumerates for one model on one cluster, in a fixed order.
//
// Dimensions, each taken from the base scenario instead when a --fix pins its key:
//   tp                 divisors of the GPUs per node (stepsim refuses tensor parallelism across
//                      nodes: parallel_plan.hpp)
//   pp                 divisors of world / tp, at most the model's layers
//   cp                 1, and the divisors of world / (tp·pp) for which 2·cp divides the
//                      sequence (causal load balancing) and each GPU keeps at least 8,192 tokens
//                      of it (the share of Llama 3's 128K stage, arXiv 2407.21783 Table 4);
//                      dp = world / (tp·pp·cp)
//   cp_algorithm       with cp > 1, each of p2p, all_gather, a2a and a2a+p2p (make_plan refuses
//                      those the heads or the layout do not allow)
//   ep                 MoE: divisors of dp·cp·tp that divide the routed experts; dense: 1
//   sequence_parallel  with tp > 1, off and on
//   zero               0-3 without a pipeline, 0-1 with one (parallel_plan.hpp); 0 alone when
//                      every parameter has one replica (dp = 1, and edp = 1 for experts)
//   schedule           none without a pipeline; every registered schedule with one
//   virtual_stages     2 and 4 for the schedules that use them; else 1
//   micro_batch        1, 2, 4, 8 sequences, where dp·micro_batch divides the global batch
//   recompute          none, selective, full, and the model file's recompute_lists
//   comm_sms           with ep > 1: 16, 20, 24, 32 SMs for the all-to-all kernels (DeepEP's
//                      default is 24, DeepSeek-V3 trained with 20: arXiv 2412.19437 §3.2.2);
//                      else 0 (the NCCL collectives' SMs are not held from compute)
//   split              with a pipeline: balanced layers, or the embedding and head counted as a
//                      layer each (Megatron's account-for-embedding/loss)
// Only whole-number divisibility is checked here; every other rule (heads over tp, schedules'
// micro-batch counts, ...) is make_plan's, so an invalid layout is reported with its reason.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sim/search/layout.hpp"

namespace stepsim::search {

// The scenario keys a --fix pins as a search dimension.
const std::vector<std::string>& dimension_keys();

struct SearchSpace {
  std::vector<RecomputeOption> recomputes;
  std::vector<Layout> layouts;
};

// `fixed`: the dimension keys the user pinned (their values are the base scenario's).
SearchSpace enumerate(const spec::ScenarioSpec& base, const std::set<std::string>& fixed);

}  // namespace stepsim::search
