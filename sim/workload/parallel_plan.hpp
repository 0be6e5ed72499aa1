// The parallel plan: a validated layout of the model over the cluster's GPUs.
//
// world = dp · pp · cp · tp. Ranks are numbered as Megatron orders them (tp-cp-ep-dp-pp):
// rank = stage_rank·(dp·cp·tp) + dp_rank·(cp·tp) + cp_rank·tp + tp_rank, so tensor-parallel
// groups are consecutive and fill NVLink islands first, then context-parallel groups (inside a
// node while cp·tp fits one), then data-parallel replicas; pipeline stages are outermost. A
// non-expert weight is the same on the dp·cp GPUs of a tensor-parallel rank's column (its
// data-parallel group, which ZeRO shards over and gradients are reduced over, as Megatron's
// data-parallel group with context parallelism). Expert parallelism is carved out of dp·cp·tp:
// an EP group is `ep` consecutive ranks of one stage, and each routed expert is replicated over
// edp = dp·cp·tp/ep ranks (its data-parallel group). Context parallelism splits every sequence
// over its cp GPUs (context_parallel.hpp): a micro-batch's tokens on a GPU are its
// micro_batch·seq_len/cp.
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

// The group a collective runs over, relative to the GPU that runs it: its tensor-parallel or
// expert-parallel group, the data-parallel group of its non-expert (dp, with the context-parallel
// ranks, which hold the same weights) or expert (edp) parameters, or its context-parallel group
// (cp), the part of it an all-to-all of heads spans (cp_a2a) or the ring that passes K and V
// (cp_ring; context_parallel.hpp).
enum class GroupRole : std::uint8_t { tp, ep, dp, edp, cp, cp_a2a, cp_ring };

struct ParallelPlan {
  int world = 1, dp = 1, pp = 1, tp = 1, ep = 1, cp = 1;
  int edp = 1;  // data-parallel degree of a routed expert: dp·cp·tp/ep
  // Expert slots per routed expert, (E + R) / E with R redundant slots (expert_load.hpp): each
  // slot holds a whole expert, so a GPU holds this many times experts / ep experts' parameters.
  double expert_slots_per_expert = 1.0;
  spec::CpAlgorithm cp_algorithm = spec::CpAlgorithm::p2p;
  int cp_a2a = 1;         // GPUs of context parallelism's head all-to-all (context_parallel.hpp)
  int zero = 0;           // ZeRO stage
  spec::Zero3Spec zero3;  // how ZeRO-3 runs (zero3_placement.hpp)
  int gpus_per_node = 1;
  int stages = 1;
  int main_layers = 0, mtp_layers = 0;  // the model's; MTP blocks follow the last stage's head
  std::vector<int> stage_layers;        // layers per stage
  std::vector<int> stage_first_layer;   // index of each stage's first layer
  long long micro_batches = 1;          // per pipeline and step (m)
  double tokens_per_micro_batch = 0;    // of one sequence-parallel share: micro_batch·seq_len/cp
  std::vector<std::vector<StageShare>> device_stages;  // per pipeline rank

  // The job's first GPU on the fabric: 0, or where a job sharing the fabric with others is placed
  // (run/jobs.hpp), a whole node's GPU.
  int gpu_offset = 0;

  // The rank -> GPU map: pipeline rank r holds the dp·cp·tp consecutive GPUs from
  // gpu_offset + r·dp·cp·tp (its tp groups, its cp groups, then its data-parallel replicas); a
  // GPU's node is GPU / gpus_per_node.
  int gpus_per_rank() const { return dp * cp * tp; }
  int replicas() const { return dp * cp; }  // GPUs holding the same non-expert weights
  int first_gpu(int rank) const { return gpu_offset + rank * gpus_per_rank(); }
  int rank_of_gpu(int gpu) const { return (gpu - gpu_offset) / gpus_per_rank(); }
  bool same_node(int rank_a, int rank_b) const {
    return first_gpu(rank_a) / gpus_per_node == first_gpu(rank_b) / gpus_per_node &&
           gpus_per_rank() < gpus_per_node;
  }

  // Size and stride (in GPUs) of rank 0's group of a role, and its shape on the nodes: dp the
  // replicas of a non-expert parameter, edp of a routed-expert one; cp_a2a consecutive members of
  // the cp group, cp_ring cp / cp_a2a members, cp_a2a apart.
  std::pair<int, int> group_of(GroupRole role) const;
  net::GroupShape group(GroupRole role) const;
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
