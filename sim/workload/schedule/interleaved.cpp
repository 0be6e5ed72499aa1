// Interleaved 1F1B (Narayanan et al., arXiv 2104.04473): v model chunks per device, stage
// c·p + d on device d; micro-batches in groups of p; device d runs (p-d-1)·2 + (v-1)·p warm-up
// forwards. Bubble (p-1)/(v·m) of the ideal time, at v times the point-to-point traffic. Needs
// v >= 2 and m a multiple of p.
#include <algorithm>

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

namespace {

void build(PipelineProgram& p, int v) {
  const int pp = p.devices, total = p.micro_batches * v;
  // The k-th forward (backward) of a device: chunk and micro-batch, in groups of pp micro-batches.
  auto fwd = [&](int k) { return std::pair{(k % (pp * v)) / pp, k / (pp * v) * pp + k % pp}; };
  auto bwd = [&](int k) {
    return std::pair{v - 1 - (k % (pp * v)) / pp, k / (pp * v) * pp + k % pp};
  };
  for (int d = 0; d < pp; ++d) {
    std::vector<PipeInstr>& prog = p.per_device[d];
    const int warm = std::min((pp - d - 1) * 2 + (v - 1) * pp, total);
    int f = 0, b = 0;
    auto push = [&](PipeOp op, std::pair<int, int> cj) {
      prog.push_back(task(op, cj.first * pp + d, cj.second));
    };
    for (; f < warm; ++f) push(PipeOp::F, fwd(f));
    for (; f < total; ++f, ++b) {
      push(PipeOp::F, fwd(f));
      push(PipeOp::BW, bwd(b));
    }
    for (; b < total; ++b) push(PipeOp::BW, bwd(b));
  }
}

std::optional<ScheduleIssue> check(int pp, long long m, int v) {
  if (v < 2)
    return ScheduleIssue{"parallelism.virtual_stages", "interleaved 1F1B needs virtual_stages >= 2",
                         "set virtual_stages: 2 (model chunks per device) or use schedule: 1f1b"};
  if (m % pp != 0)
    return ScheduleIssue{"training.global_batch",
                         "interleaved 1F1B needs the micro-batch count (" + std::to_string(m) +
                             ") to be a multiple of pp (" + std::to_string(pp) + ")",
                         "change global_batch or micro_batch so that global_batch / (dp * "
                         "micro_batch) divides by pp"};
  return std::nullopt;
}

std::vector<StageShare> device_stages(int d, int pp, int v) {
  std::vector<StageShare> out;
  for (int c = 0; c < v; ++c) out.push_back({d + c * pp, 1.0});
  return out;
}

}  // namespace

extern const ScheduleDef kInterleaved{
    .word = "interleaved",
    .stages = [](int pp, int v) { return pp * v; },
    .device_stages = device_stages,
    .check = check,
    .build = build,
    // Megatron: (pp - d - 1)·2 + (v - 1)·pp warm-up chunks, plus the one in flight.
    .peak_in_flight =
        [](double pp, double m, double v, int d) {
          return std::min(m * v, (pp - d - 1) * 2.0 + (v - 1.0) * pp + 1.0);
        },
    .bubble = [](double pp, double, double v) { return (pp - 1.0) / v; },  // (p-1)(F+B)/v
    .uses_virtual_stages = true,
};

}  // namespace stepsim::workload
