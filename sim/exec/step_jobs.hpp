// Several jobs' steps on one fabric: their step graphs, each built on the shared topology with its
// GPUs where the job is placed (workload::ParallelPlan::gpu_offset), joined into one graph that the
// executor runs as it runs one job's (step_executor.hpp). Nothing couples the jobs but the
// resources they share: a link that both load is one constraint of the max-min system, so while
// both jobs' communication ops are in flight on it they share its capacity, each op to its
// max-min fair share. Jobs on disjoint GPUs share no HBM and no SMs; jobs whose traffic crosses no
// common link do not interact at all. Each job's timeline is then cut out of the joint one.
// What this leaves out: the collectives' own times are each job's (timed with its own sibling
// groups); the other job reaches them only through the live fabric, as any concurrent op does.
#pragma once

#include <vector>

#include "sim/exec/step_executor.hpp"
#include "sim/exec/step_graph.hpp"

namespace stepsim::exec {

struct JointGraph {
  StepGraph graph;
  std::vector<int> first_op, first_device;  // per job, and one past the last job
};

// Joins graphs built on one topology with unmerged links (ExecOptions::merge_links false), in
// order: job j's op i is op first_op[j] + i of the joint graph, its device d device
// first_device[j] + d. The joint graph's links are then merged (merge_equivalent_links).
JointGraph join_graphs(const std::vector<const StepGraph*>& jobs);

// Job j's timeline out of the joint graph's: its ops' starts and ends, the pieces its ops ran,
// numbered as in its own graph, its step the last end of its ops.
StepTimeline job_timeline(const JointGraph& joint, const StepTimeline& t, int job);

// Bytes each topology link carries over the step in an unmerged graph: over its communication
// ops, the bytes of every piece of their load.
std::vector<double> link_bytes(const StepGraph& g);

}  // namespace stepsim::exec
