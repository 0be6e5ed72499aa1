// Memory in use on each simulated device over the step, and its peak.
//
// Per device: its own rank's static state (parameters, gradients, optimizer, ZeRO-3 buffers:
// workload/memory.hpp, as the program carries them) plus its live activations, which grow by a
// stage's per-micro-batch activations when a forward chunk's last compute op ends and shrink by as
// much when that chunk's backward (input gradient) ends, or its weight gradient where the schedule
// splits them (W still reads them). At one instant, what is freed goes before what is allocated.
// The peak is the largest such sum over devices.
//
// Not modelled: the allocator's fragmentation and caching, temporary buffers inside kernels,
// communication buffers beyond the ZeRO-3 ones memory.hpp counts.
#pragma once

#include <utility>
#include <vector>

#include "sim/exec/step_executor.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::analysis {

struct MemoryTimeline {
  // Per device: memory in use (bytes) after each change, in time order.
  std::vector<std::vector<std::pair<engine::Time, double>>> per_device;
  double peak_bytes = 0.0;
  int peak_device = 0;
};

MemoryTimeline memory_timeline(const workload::StepProgram& program, const exec::StepGraph& g,
                               const exec::StepTimeline& t);

}  // namespace stepsim::analysis
