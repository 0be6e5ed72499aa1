// 1F1B (Narayanan et al., arXiv 2104.04473): device d runs p-d-1 warm-up forwards, then one
// forward and one full backward alternately, then the remaining backwards. Bubble (p-1)(F+B); at
// most p-d micro-batches in flight on device d. The same builder with B and W apart is ZB1P.
#include <algorithm>
#include <deque>

#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

void build_one_f_one_b(PipelineProgram& p, bool split) {
  const int m = p.micro_batches;
  for (int d = 0; d < p.devices; ++d) {
    std::vector<PipeInstr>& prog = p.per_device[d];
    std::deque<int> pending;
    auto backward = [&](int j, bool drain) {
      if (!split) {
        prog.push_back(task(PipeOp::BW, d, j));
        return;
      }
      prog.push_back(task(PipeOp::B, d, j));
      pending.push_back(j);
      const std::size_t keep = drain ? 0 : static_cast<std::size_t>(d);
      while (pending.size() > keep) {
        prog.push_back(task(PipeOp::W, d, pending.front()));
        pending.pop_front();
        if (drain) break;
      }
    };
    const int warm = std::min(p.devices - d - 1, m);
    int f = 0, b = 0;
    for (; f < warm; ++f) prog.push_back(task(PipeOp::F, d, f));
    for (; f < m; ++f, ++b) {
      prog.push_back(task(PipeOp::F, d, f));
      backward(b, false);
    }
    for (; b < m; ++b) backward(b, true);
    for (; !pending.empty(); pending.pop_front())
      prog.push_back(task(PipeOp::W, d, pending.front()));
  }
}

extern const ScheduleDef kOneFOneB{
    .word = "1f1b",
    .build = [](PipelineProgram& p, int) { build_one_f_one_b(p, false); },
    .peak_in_flight = [](double pp, double m, double, int d) { return std::min(m, pp - d); },
    .bubble = [](double pp, double, double) { return pp - 1.0; },  // (p-1)(F+B)
};

}  // namespace stepsim::workload
