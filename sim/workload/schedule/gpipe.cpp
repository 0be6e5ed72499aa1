// GPipe (Huang et al., arXiv 1811.06965): all m forwards, then all m full backwards, on every
// device. Bubble (p-1)(F+B) as 1F1B's, but every micro-batch's activations are held at once.
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

namespace {

void build(PipelineProgram& p, int) {
  for (int d = 0; d < p.devices; ++d) {
    for (int j = 0; j < p.micro_batches; ++j) p.per_device[d].push_back(task(PipeOp::F, d, j));
    for (int j = 0; j < p.micro_batches; ++j) p.per_device[d].push_back(task(PipeOp::BW, d, j));
  }
}

}  // namespace

extern const ScheduleDef kGpipe{
    .word = "gpipe",
    .build = build,
    .peak_in_flight = [](double, double m, double, int) { return m; },
    .bubble = [](double pp, double, double) { return pp - 1.0; },  // (p-1)(F+B)
};

}  // namespace stepsim::workload
