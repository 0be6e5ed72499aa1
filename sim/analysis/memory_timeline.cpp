#include "sim/analysis/memory_timeline.hpp"

#include <algorithm>
#include <map>
#include <tuple>
namespace stepsim::analysis {

MemoryTimeline memory_timeline(const workload::StepProgram& program, const exec::StepGraph& g,
                               const exec::StepTimeline& t) {
  MemoryTimeline out;
  out.per_device.resize(g.devices);
  for (int d = 0; d < g.devices; ++d) {
    const double fixed = program.static_bytes[g.rank_of(d)];
    std::map<std::tuple<workload::Phase, int, int>, int> last;  // (phase, stage, mb) -> op
    for (int op : g.streams[d][static_cast<int>(workload::StreamKind::compute)]) {
      const auto& o = g.ops[op];
      if (o.mb >= 0 && o.phase != workload::Phase::step_end) last[{o.phase, o.stage, o.mb}] = op;
    }
    std::vector<std::pair<engine::Time, double>> deltas;
    for (const auto& [key, op] : last) {
      const auto [phase, stage, mb] = key;
      const double b = program.activation_bytes[stage];
      if (phase == workload::Phase::forward) deltas.push_back({t.end[op], b});
      if (phase == workload::Phase::backward_weight) deltas.push_back({t.end[op], -b});
      if (phase == workload::Phase::backward) {
        const auto w = last.find({workload::Phase::weight, stage, mb});
        deltas.push_back({t.end[w == last.end() ? op : w->second], -b});
      }
    }
    std::sort(deltas.begin(), deltas.end());
    double live = 0.0, peak = 0.0;
    out.per_device[d].push_back({engine::Time(), fixed});
    for (const auto& [at, delta] : deltas) {
      peak = std::max(peak, live += delta);
      out.per_device[d].push_back({at, fixed + live});
    }
    if (fixed + peak > out.peak_bytes) {
      out.peak_bytes = fixed + peak;
      out.peak_device = d;
    }
  }
  return out;
}

}  // namespace stepsim::analysis
