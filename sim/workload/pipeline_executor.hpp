// Runs pipeline programs on the event engine: each device executes its instruction list in order;
// an instruction starts when the device is free and its inputs have arrived.
//
// Inputs: F(s,j) the activation from F(s-1,j); B(s,j) the gradient from B(s+1,j) and its own
// F(s,j); W(s,j) its own B(s,j). An output sent between devices arrives `send` later (as the cost
// model says; 0 for free communication); on one device it is available at once. Programs with
// explicit communication publish an output only at its send instruction, and a compute waits for
// every receive posted before it.
// Output: every executed instruction with its device, start and end; the step time T is the last
// end. A program that cannot progress is a deadlock naming the stuck instructions.
#pragma once

#include <vector>

#include "sim/engine/time.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace stepsim::workload {

// Durations of the pipeline's compute and messages.
class PipelineCost {
 public:
  virtual engine::Time forward(int stage, int mb) const = 0;
  virtual engine::Time input_grad(int stage, int mb) const = 0;         // B
  virtual engine::Time weight_grad(int stage, int mb) const = 0;        // W
  virtual engine::Time overlapped(StageTask f, StageTask b) const = 0;  // F&B
  virtual engine::Time send(int from_device, int to_device, bool activation) const = 0;

 protected:
  ~PipelineCost() = default;
};

// Every stage alike: F, B, W, F&B given; free communication unless `message` is set.
struct UniformPipelineCost final : PipelineCost {
  engine::Time f, b, w, fb, message;
  engine::Time forward(int, int) const override { return f; }
  engine::Time input_grad(int, int) const override { return b; }
  engine::Time weight_grad(int, int) const override { return w; }
  engine::Time overlapped(StageTask, StageTask) const override { return fb; }
  engine::Time send(int from, int to, bool) const override {
    return from == to ? engine::Time() : message;
  }
};

struct ExecutedInstr {
  int device = 0;
  PipeInstr instr;
  engine::Time start, end;
};

struct PipelineRun {
  engine::Time step;               // T
  std::vector<engine::Time> busy;  // per device
  std::vector<ExecutedInstr> timeline;
  std::uint64_t events = 0;
  engine::Time idle(int device) const { return step - busy[device]; }
};

PipelineRun execute_pipeline(const PipelineProgram& program, const PipelineCost& cost);

}  // namespace stepsim::workload
