// What-if switches on a built step graph: each turns off one mechanism by which the executor
// makes a step longer than its operations' own times, so that the step can be run again without it
// (run/whatif.hpp attributes the difference).
//   free_communication  every communication op (collective, pipeline send, data-parallel tail)
//                       takes no time and asks nothing of links, HBM or SMs: what remains of the
//                       step is its compute, its dependencies and the schedule's order;
//   no_link_sharing     communication ops in flight do not share the fabric's links: each runs at
//                       its own time, measured with its sibling groups (the live fabric's links
//                       unbounded);
//   no_hbm_sharing      compute and communication on one GPU do not share its HBM bandwidth (its
//                       capacity unbounded);
//   no_sm_sharing       communication kernels take no SMs from the compute beside them beyond
//                       those parallelism.comm_sms reserves (compute timed on them already), and
//                       none waits for a persistent kernel's CTAs to retire.
// The switches act on the graph's shared resources (StepGraph::link_capacity, hbm_capacity, sms)
// and on the communication ops' durations and demands; the executor runs the graph as it runs
// any other. The mechanisms the scenario's inputs hold (kernel launch overhead and gaps, GPU
// variability, expert load skew, faults) are switched off in its spec (run/whatif.hpp).
#pragma once

#include "sim/exec/step_graph.hpp"

namespace stepsim::exec {

struct Idealisation {
  bool free_communication = false;
  bool no_link_sharing = false;
  bool no_hbm_sharing = false;
  bool no_sm_sharing = false;
};

void idealise(StepGraph& g, const Idealisation& ideal);

}  // namespace stepsim::exec
