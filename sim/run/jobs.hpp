// Several jobs on one fabric (stepsim run A --with B): each job is its own scenario, placed on its
// own nodes of the first job's cluster, and their steps are simulated together, sharing the
// fabric's links as any concurrent communication does (exec/step_jobs.hpp).
//
// Placement: nodes numbered in the order given: job 0 on nodes [0, n0), job 1 on [n0, n0 + n1),
// ..., each job's size its scenario's cluster.nodes; the fabric is the first job's cluster with
// n0 + n1 + ... nodes (its faults, numbered on the whole fabric when loaded, config::read_faults,
// apply to every job), and its placement
// (spec::Placement: packed, the default, spread over the leaves or zones) puts those nodes under
// the leaves; a placement listed slot by slot names one job's nodes and is refused. The jobs must
// name the same cluster (device, GPUs per node, fabric) and network fidelity; a later job may not
// carry faults of its own. Each job is also simulated alone on the same nodes: the difference is
// what the others cost it. Jobs whose traffic stays under their own leaves do not meet; jobs
// whose traffic climbs through a leaf they share meet on its uplinks, and the spine downlinks to
// a shared leaf, and share them max-min fairly while both send.
// Not modelled: jobs starting at different times (every step starts at 0), and a job's later
// steps overlapping another's.
#pragma once

#include <vector>

#include "sim/analysis/link_usage.hpp"
#include "sim/run/pipeline.hpp"

namespace stepsim::run {

// Links of one group that a job loads and another job loads too.
struct SharedLinks {
  hw::LinkGroup group = hw::LinkGroup::leaf_uplink;
  int links = 0;
  double own_bytes = 0.0, other_bytes = 0.0;  // over the step, on those links
  int busiest = -1;  // the link of the group carrying the most of the other jobs' bytes
};

struct JobRun {
  Result sim;            // the job as it ran beside the others; its topology is the whole fabric
  double alone_s = 0.0;  // its step alone on the same nodes
  int first_node = 0, nodes = 0;
  std::vector<SharedLinks> shared;  // by group, in LinkGroup order
  double slowdown() const { return alone_s > 0.0 ? sim.metrics.step_s / alone_s - 1.0 : 0.0; }
};

// The fabric the jobs share: the first job's cluster with every job's nodes. Throws
// engine::UserError at the job that cannot share it.
spec::ClusterSpec shared_fabric(const std::vector<spec::ScenarioSpec>& jobs);

// Each job prepared with its `limits` (run::prepare's refusals, the memory of the jobs before it
// counted; the default limits for jobs beyond the list), then every job simulated together and
// alone.
std::vector<JobRun> simulate_jobs(const std::vector<spec::ScenarioSpec>& jobs,
                                  const std::vector<Limits>& limits = {},
                                  const engine::RunControl* control = nullptr);

}  // namespace stepsim::run
