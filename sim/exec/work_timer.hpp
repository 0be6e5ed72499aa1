// The works of a chain timed on one device of the step graph (instantiate.hpp): a compute work
// from its kernels (compute_timer.hpp) scaled by the device's slowdown (its slowest GPU's pace,
// hw/variability.hpp), a communication work as the sum of its collectives on the device's groups
// (collective_timer.hpp), with the link bytes and fabric load they carry and the SMs they hold.
// Values in, values out: the caller keeps what it wants to reuse.
#pragma once

#include <vector>

#include "sim/engine/time.hpp"
#include "sim/exec/collective_timer.hpp"
#include "sim/exec/compute_timer.hpp"
#include "sim/hw/topology.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::exec {

struct TimedWork {
  engine::Time duration;
  double ib_bytes = 0.0, nvlink_bytes = 0.0;
  int load = -1;
  // Kernel jitter (hw/variability.hpp): a compute work's Σ t_k² (s²); a collective with barrier
  // semantics' e_n for its largest group (0: none).
  double square_sum = 0.0, expected_max = 0.0;
  double waiting = 0.0;                         // StepOp::waiting_s
  double sm_scaled = 0.0, sm_persistent = 0.0;  // StepOp::sm_scaled_s, sm_persistent_s
  double persistent_wait = 0.0;                 // StepOp::persistent_wait_s
  int sms = 0;                                  // StepOp::sms
};

// A device as its works are timed: its GPUs, and the pace its compute runs at (>= 1).
struct DeviceTiming {
  DeviceCells cells;
  double slowdown = 1.0;
};

class WorkTimer {
 public:
  WorkTimer(const workload::StepProgram& program, const hw::Topology& topo,
            CollectiveTimer& collectives, ComputeTimer& compute)
      : program_(program), topo_(topo), collectives_(collectives), compute_(compute) {}

  // A work's time on the device, with its link bytes and load.
  TimedWork time(const workload::Work& w, const DeviceTiming& d);
  // The chain's works timed on the device; a compute work's kernels are timed once for all
  // devices (a device only scales them by its slowdown).
  std::vector<TimedWork> chain(int chain, const DeviceTiming& d);

 private:
  const workload::StepProgram& program_;
  const hw::Topology& topo_;
  CollectiveTimer& collectives_;
  ComputeTimer& compute_;
};

}  // namespace stepsim::exec
