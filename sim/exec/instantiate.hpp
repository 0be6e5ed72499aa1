// Instantiates the step program (step_program.hpp) as the timed step graph the executor runs
// (step_graph.hpp), one device per symmetry class of every pipeline rank (symmetry.hpp).
//
// Each device runs its rank's instructions: every chunk's chain becomes ops with the chain's
// dependencies, its works timed on the device (work_timer.hpp): every kernel timed by the device's
// KernelModel with the program's SM share, slowed by the slowest GPU of the device's cells, every
// collective timed on its representative cell's groups with the class's sibling groups
// (collective_timer.hpp), each carrying its load on the fabric's links for the executor's live
// fabric (step_executor.hpp). A chain is timed once per device and reused by all its chunks. An
// overlapped F&B pair (DualPipe) interleaves the two chunks' works so one chunk's communication
// runs under the other's compute. Pipeline sends go from a class to the same class of the next rank
// and leave as soon as their chunk is computed (no batching of sends). The tail's data-parallel
// works run on their own stream (a gradient reduction after its stage's last backward, overlapping
// the device's remaining backward work; a work whose collectives take no time, as with one replica
// or a free network, is left out); they and ZeRO-3's per-layer gathers and reduce-scatters span
// every class of the rank: their copies are coupled (StepOp::couple), so they start when the last
// class is ready and end together.
#pragma once

#include <cstdint>

#include "sim/engine/simulator.hpp"
#include "sim/exec/collective_timer.hpp"
#include "sim/exec/idealise.hpp"
#include "sim/exec/step_graph.hpp"
#include "sim/hw/topology.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::exec {

// How the program runs: the network's fidelity, and whether every cell of GPUs is simulated on
// its own (exact) rather than one per symmetry class.
struct ExecOptions {
  spec::NetworkFidelity fidelity = spec::NetworkFidelity::flow;
  bool exact = false;
  // Merge the links every profile loads alike (StepGraph::merge_equivalent_links); false for a
  // graph that is to be joined with other jobs' first (step_jobs.hpp).
  bool merge_links = true;
  // Operations the graph is expected to have (run::Estimates::ops), reserved at once so that the
  // graph's largest array is not copied as it grows; room left untouched takes no memory.
  double expected_ops = 0.0;
  Idealisation ideal{};  // mechanisms switched off (what-if runs); none by default
};

struct StepBuild {
  StepGraph graph;
  std::uint64_t network_events = 0;  // events spent timing the collectives
  std::uint64_t network_flows = 0;   // flows they simulated (a bundle once)
  int collectives_timed = 0;
  std::vector<net::PlannedCollective> collectives;  // each distinct one, with the algorithm it ran
};

// The program is the whole contract: its layout (StepProgram::plan), every collective's resolved
// choice, the device from the topology's cluster.
StepBuild build_step(const workload::StepProgram& program, const hw::Topology& topo,
                     const ExecOptions& options, const engine::RunControl* control = nullptr);

}  // namespace stepsim::exec
