// The simulated step as a Chrome Trace Event Format file (Perfetto, chrome://tracing).
//
// Process = node, thread = one GPU's stream (compute, comm, p2p, dp): each pipeline rank is shown
// on its first GPU. Complete events ("X") named by operation ("attn fwd", "dispatch", "experts
// bwd": a few dozen names, so that views aggregating by name work) with args (the op's full
// name "F mb12 L4 attn", phase, micro-batch, stage, layer, FLOPs, bytes); flow arrows from each
// pipeline send to the op that consumes it; counters per pipeline rank of the memory in use and
// of its GPU's NVLink and InfiniBand throughput (each transfer's bytes per GPU over its
// duration). Times are in microseconds. `ranks` selects pipeline ranks (all when empty);
// `per_layer` merges a stream's consecutive ops of one layer, micro-batch and phase into one
// event ("layer fwd", "layer comm bwd"), spanning the waits between them (args: ops, busy_us):
// about 0.4 of the events under 1F1B, 0.9 under DualPipe, whose compute stream alternates
// between two micro-batches' layers.
#pragma once

#include <string>
#include <vector>

#include "sim/run/step_simulation.hpp"

namespace stepsim::report {

struct TraceOptions {
  std::vector<int> ranks;
  bool per_layer = false;
  // The command's wall-clock budget and signal flag, checked once per pipeline rank and before
  // each sort (engine::Stopped): a large trace cannot outlast --max-wall by more than one rank's
  // work.
  const engine::RunControl* control = nullptr;
};

// Memory a trace takes while it is built and written, per estimated event: the DualPipe trace is
// 160 B per event on disk, twice that while its string grows, rounded up.
constexpr double kTraceBytesPerEvent = 600.0;

std::string chrome_trace(const run::StepSimulation& s, const spec::ScenarioSpec& spec,
                         const TraceOptions& o);

}  // namespace stepsim::report
