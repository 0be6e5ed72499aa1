// No pipeline: one device runs every layer, a forward and a full backward per micro-batch (data
// and tensor parallelism only).
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

extern const ScheduleDef kNoSchedule{
    .word = "none",
    .build = [](PipelineProgram& p, int) { build_one_f_one_b(p, false); },
    .peak_in_flight = [](double, double, double, int) { return 1.0; },
    .bubble = [](double, double, double) { return 0.0; },
};

}  // namespace stepsim::workload
