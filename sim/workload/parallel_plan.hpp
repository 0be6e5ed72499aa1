// The parallel plan: a validated layout of the model over the cluster's GPUs.
//
// world = dp · pp · tp. Ranks are numbered rank = stage_rank·(dp·tp) + dp_rank·tp + tp_rank, so
// tensor-parallel groups are consecutive and fill NVLink islands first, then data-parallel
// replicas; pipeline stages are outermost. Expert parallelism is carved out of dp·tp: an EP group
// is `ep` consecutive ranks of one stage, and each routed expert is replicated over
// edp = dp·tp/ep ranks (its data-parallel group).
//
// The model is cut into `stages` pipeline stages (pp, or pp·v for interleaved, or 2·pp for
// DualPipeV), layers split evenly unless given (the embedding and head may count as a layer each
// in the split, and the first or last stage may hold only the embedding or only the head); the
// embedding sits on the first stage and the head on the last. Each pipeline rank (device) runs a
// list of stages, each for a share of the m micro-batches of a step: 1F1B rank i runs stage i for
// all of them; DualPipe rank i runs stage i for the half entering at the top and stage pp-1-i for
// the half entering at the bottom.
#pragma once

#include <vector>

#include "sim/net/collective_cost.hpp"
#include "sim/spec/scenario.hpp"
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

struct ParallelPlan {
  int world = 1, dp = 1, pp = 1, tp = 1, ep = 1;
  int edp = 1;  // data-parallel degree of a routed expert: dp·tp/ep
  int gpus_per_node = 1;
  int stages = 1;
  int main_layers = 0, mtp_layers = 0;  // the model's; MTP blocks follow the last stage's head
  std::vector<int> stage_layers;        // layers per stage
  std::vector<int> stage_first_layer;   // index of each stage's first layer
  long long micro_batches = 1;          // per pipeline and step (m)
  double tokens_per_micro_batch = 0;
  std::vector<std::vector<StageShare>> device_stages;  // per pipeline rank

  // The rank -> GPU map: pipeline rank r holds the dp·tp consecutive GPUs from r·dp·tp (its tp
  // groups, then its data-parallel replicas); a GPU's node is GPU / gpus_per_node.
  int gpus_per_rank() const { return dp * tp; }
  int first_gpu(int rank) const { return rank * gpus_per_rank(); }
  int rank_of_gpu(int gpu) const { return gpu / gpus_per_rank(); }
  bool same_node(int rank_a, int rank_b) const {
    return first_gpu(rank_a) / gpus_per_node == first_gpu(rank_b) / gpus_per_node &&
           gpus_per_rank() < gpus_per_node;
  }

  net::GroupShape tp_group() const;
  net::GroupShape dp_group() const;  // replicas of a non-expert parameter
  net::GroupShape ep_group() const;
  net::GroupShape edp_group() const;  // replicas of a routed-expert parameter
  bool stage_neighbours_on_same_node() const;
};

// Validates `spec.parallel` against the model and cluster; throws engine::UserError pointing at
// the offending field.
ParallelPlan make_plan(const spec::ScenarioSpec& spec);

// Largest number of (stage, micro-batch) activation sets a device holds at once under the
// schedule, and the stage they belong to (the device's most expensive one).
double peak_in_flight_micro_batches(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                                    int device);

// The nodes a token may reach in a dispatch: the model's expert-group limit (groups are nodes
// when the EP group spans `groups` nodes) scaled to the EP group's nodes; 0 when not limited.
int max_target_nodes(const spec::MoeSpec& moe, int ep_nodes);

}  // namespace stepsim::workload
