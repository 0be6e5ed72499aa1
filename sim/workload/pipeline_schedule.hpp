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
// Schedules (p devices, m micro-batches):
//   gpipe        all m forwards, then all m backwards (BW).
//   1f1b         p-d-1 warm-up forwards on device d, then one forward / one backward, then the
//   rest. interleaved  Megatron's: v chunks per device (stage c·p + d on device d), micro-batches
//   in
//                groups of p, (p-d-1)·2 + (v-1)·p warm-up forwards.
//   zb1p         1F1B with B and W split; device d keeps up to d weight gradients pending and runs
//                each once more than d are pending, the rest at the end (zero-bubble H1: bubble
//                (p-1)(F+B-2W) with B the full backward, verified for every device in the tests).
//   dualpipe     DeepSeek's (deepseek-ai/DualPipe): half the micro-batches enter at device 0,
//                half at device p-1; device d holds stages d and p-1-d; the eight steps of its
//                schedule (warm-up forwards; F0F1; B1W1F1; the main F&B loop; B1 F&B; B1B0 with the
//                second half zero-bubble; W B0; W).
//   dualpipev    the V-shaped "cut-in-half" DualPipe (Sea AI Lab; deepseek-ai/DualPipe README):
//                2p stages on p devices, device d holding stages d and 2p-1-d, m >= 2p.
#pragma once

#include <string>
#include <vector>

#include "sim/workload/parallel_spec.hpp"

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
  Schedule schedule = Schedule::one_f_one_b;
  int devices = 1;
  int stages = 1;
  int micro_batches = 1;
  bool explicit_comm = false;
  std::vector<std::vector<PipeInstr>> per_device;

  int device_of(int stage, int mb) const;
};

// Builds the instruction lists; preconditions (pp, m, v) are checked by make_plan.
PipelineProgram build_pipeline(Schedule schedule, int devices, int micro_batches,
                               int virtual_stages = 1);

std::string to_string(const PipeInstr& i);

}  // namespace stepsim::workload
