// ZB1P, zero-bubble H1 (Qi et al., arXiv 2401.10241): 1F1B with the backward split into the input
// gradient B and the weight gradient W; device d keeps up to d weight gradients pending and runs
// one each time more are, the rest at the end. Bubble (p-1)(F+B-2W) with B the full backward;
// memory in flight as 1F1B's.
#include <algorithm>

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

extern const ScheduleDef kZb1p{
    .word = "zb1p",
    .build = [](PipelineProgram& p, int) { build_one_f_one_b(p, true); },
    .peak_in_flight = [](double pp, double m, double, int d) { return std::min(m, pp - d); },
    // (p-1)(F + B - 2W), B the full backward: (1/3 + 2/3 - 2/3) per step.
    .bubble = [](double pp, double, double) { return (pp - 1.0) / 3.0; },
};

}  // namespace stepsim::workload
