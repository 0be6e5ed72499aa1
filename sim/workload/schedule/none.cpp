// No pipeline: one device runs every layer, a forward and a full backward per micro-batch (data
// and tensor parallelism only).
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

extern const ScheduleDef kNoSchedule;
const ScheduleDef kNoSchedule{
    "none",
    stages_pp,
    device_of_stage,
    one_stage,
    no_issue,
    [](PipelineProgram& p, int) { build_one_f_one_b(p, false); },
    [](double, double, double, int) { return 1.0; },
};

}  // namespace stepsim::workload
