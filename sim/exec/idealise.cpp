#include "sim/exec/idealise.hpp"

namespace stepsim::exec {

namespace {
constexpr double kUnbounded = 1e30;  // bytes/s no op asks
}  // namespace

void idealise(StepGraph& g, const Idealisation& ideal) {
  if (ideal.free_communication)
    for (StepOp& op : g.ops)
      if (workload::is_communication(op.kind)) {
        op.duration = engine::Time();
        op.load = -1;
        op.demand = Demand{};
      }
  // Links and HBM unbounded rather than removed: the ops still run as variables of the system, so
  // the resources left shared still slow them (communication joins it only over links, and
  // compute only over HBM, which is where the SMs it loses to communication slow it).
  if (ideal.no_link_sharing)
    for (double& c : g.link_capacity) c = kUnbounded;
  if (ideal.no_hbm_sharing && g.hbm_capacity > 0.0) g.hbm_capacity = kUnbounded;
  if (ideal.no_sm_sharing) g.sms = 0;
}

}  // namespace stepsim::exec
