#include "sim/profile/profile_summary.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace stepsim::profile {

RankSummary summarize(const std::string& path, const engine::RunControl* control) {
  RankSummary s;
  std::map<std::string, ClassTime> by_label;
  std::vector<std::pair<double, double>> spans;  // microseconds
  s.file = read_kineto(
      path,
      [&](const ProfileEvent& e) {
        if (!is_gpu_work(e) || !(e.dur >= 0.0)) return;
        const KernelClass c = kernel_class(e);
        ClassTime& t = by_label[c.label()];
        t.cls = c;
        t.seconds += e.dur * 1e-6;
        ++t.count;
        spans.emplace_back(e.ts, e.ts + e.dur);
      },
      control);
  s.gpu_events = static_cast<long long>(spans.size());
  if (!spans.empty()) {
    std::sort(spans.begin(), spans.end());
    double first = spans.front().first, last = -std::numeric_limits<double>::infinity();
    double busy = 0.0, open = spans.front().first, close = spans.front().first;
    for (const auto& [a, b] : spans) {
      if (a > close) {
        busy += close - open;
        open = a;
      }
      close = std::max(close, b);
      last = std::max(last, b);
    }
    busy += close - open;
    s.span_s = (last - first) * 1e-6;
    s.busy_s = busy * 1e-6;
  }
  for (auto& [label, t] : by_label) s.classes.push_back(t);
  std::stable_sort(s.classes.begin(), s.classes.end(),
                   [](const ClassTime& a, const ClassTime& b) { return a.seconds > b.seconds; });
  return s;
}

}  // namespace stepsim::profile
