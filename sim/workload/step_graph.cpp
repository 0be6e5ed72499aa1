#include "sim/workload/step_graph.hpp"

namespace stepsim::workload {

std::string_view to_string(StepOpKind k) {
  static constexpr std::string_view kNames[] = {
      "kernel",   "ep_dispatch", "ep_combine",  "tp_reduce",    "pp_send",
      "dp_grads", "dp_params",   "zero_gather", "zero_scatter", "optimizer"};
  return kNames[static_cast<int>(k)];
}

int StepGraph::add(StepOp op) {
  const int id = static_cast<int>(ops.size());
  streams[op.device][static_cast<int>(op.stream)].push_back(id);
  ops.push_back(std::move(op));
  return id;
}

std::string StepGraph::name(int id) const {
  const StepOp& o = ops[id];
  std::string s(1, o.phase);
  if (o.mb >= 0) s += " mb" + std::to_string(o.mb);
  if (o.layer >= 0)
    s += " L" + std::to_string(o.layer);
  else if (o.layer == -1)
    s += " embed";
  else if (o.layer == -2)
    s += " head";
  if (!o.part.empty()) s += " " + o.part;
  return s;
}

}  // namespace stepsim::workload
