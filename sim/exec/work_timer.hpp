// The works of a chain timed on one device of the step graph (step_builder.hpp), once per device
// and chain: a compute work from its kernels (compute_timer.hpp) scaled by the device's slowdown
// (its slowest GPU's pace, hw/variability.hpp), a communication work as the sum of its
// collectives on the device's groups (collective_timer.hpp, selected on the device by the
// builder), with the link bytes and fabric load they carry and the SMs they hold.
#pragma once

#include <vector>

#include "sim/engine/time.hpp"
#include "sim/exec/collective_timer.hpp"
#include "sim/exec/compute_timer.hpp"
#include "sim/hw/topology.hpp"
#include "sim/workload/step_program.hpp"

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

class WorkTimer {
 public:
  WorkTimer(const workload::StepProgram& program, const hw::Topology& topo,
            CollectiveTimer& collectives, ComputeTimer& compute)
      : program_(program), topo_(topo), collectives_(collectives), compute_(compute) {}

  // The device the next works run on, by its slowdown: the chains timed before are forgotten.
  void select(double slowdown);
  // A work's time on the selected device, with its link bytes and load.
  TimedWork time(const workload::Work& w);
  // The chain's works timed on the selected device; a compute work's kernels are timed once for
  // all devices (a device only scales them by its slowdown).
  const std::vector<TimedWork>& chain(int chain);

 private:
  const workload::StepProgram& program_;
  const hw::Topology& topo_;
  CollectiveTimer& collectives_;
  ComputeTimer& compute_;
  double slowdown_ = 1.0;
  std::vector<std::vector<TimedWork>> timed_;  // per chain, on the selected device
};

}  // namespace stepsim::exec
