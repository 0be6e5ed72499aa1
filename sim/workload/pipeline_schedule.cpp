#include "sim/workload/pipeline_schedule.hpp"

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

int PipelineProgram::device_of(int stage, int mb) const {
  return schedule_def(schedule).device_of(*this, stage, mb);
}

std::string to_string(const PipeInstr& i) {
  static constexpr const char* kNames[] = {"F",      "B",      "W",      "BW",    "F&B",
                                           "send F", "send B", "recv F", "recv B"};
  std::string s = kNames[static_cast<int>(i.op)];
  s += " s" + std::to_string(i.a.stage) + " mb" + std::to_string(i.a.mb);
  if (i.op == PipeOp::FB) s += " + s" + std::to_string(i.b.stage) + " mb" + std::to_string(i.b.mb);
  return s;
}

PipelineProgram build_pipeline(const spec::Schedule& schedule, int devices, int micro_batches,
                               int virtual_stages) {
  const ScheduleDef& def = schedule_def(schedule);
  PipelineProgram p;
  p.schedule = schedule;
  p.devices = devices;
  p.micro_batches = micro_batches;
  p.stages = def.stages(devices, virtual_stages);
  p.per_device.resize(devices);
  def.build(p, virtual_stages);
  return p;
}

}  // namespace stepsim::workload
