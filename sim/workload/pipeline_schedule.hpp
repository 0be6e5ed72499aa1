// Pipeline schedules as per-device instruction lists.
//
// A micro-batch j passes the model's S stages in order; (s, j) names the work of stage s on it:
//   F forward;  B input gradient;  W weight gradient;  BW = B and W back to back (no split);
//   FB an overlapped pair: the forward of one task and the full backward (BW) of another, as
//   DualPipe runs them (their compute and communication interleave; its duration is "F&B").
// Dependencies: F(s,j) needs F(s-1,j); B(s,j) needs F(s,j) and B(s+1,j); W(s,j) needs B(s,j).
// A device runs its list in order. Where a schedule batches its point-to-point messages as
// DualPipe does, the list carries explicit sends and receives: a stage's output leaves only at its
// send, and a compute waits for every receive posted before it; elsewhere an output leaves as soon
// as it is computed.
// The schedules themselves, one file each, are in schedule/ (schedule.hpp: the registry).
#pragma once

#include <string>
#include <vector>

#include "sim/spec/parallel.hpp"

namespace stepsim::workload {

enum class PipeOp : std::uint8_t { F, B, W, BW, FB, send_f, send_b, recv_f, recv_b };

struct StageTask {
  int stage = 0;
  int mb = 0;
};

struct PipeInstr {
  PipeOp op = PipeOp::F;
  StageTask a;  // the task (FB: the forward)
  StageTask b;  // FB: the backward
};

struct PipelineProgram {
  spec::Schedule schedule;
  int devices = 1;
  int stages = 1;
  int micro_batches = 1;
  bool explicit_comm = false;
  std::vector<std::vector<PipeInstr>> per_device;

  int device_of(int stage, int mb) const;
};

// Builds the instruction lists; preconditions (pp, m, v) are checked by make_plan.
PipelineProgram build_pipeline(const spec::Schedule& schedule, int devices, int micro_batches,
                               int virtual_stages = 1);

std::string to_string(const PipeInstr& i);

}  // namespace stepsim::workload
