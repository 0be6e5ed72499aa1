#include "sim/profile/profile_summary.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>

#include "sim/engine/user_error.hpp"

namespace stepsim::profile {

namespace {

// Digits at `at` of `s`, or -1.
int digits_at(const std::string& s, std::size_t at) {
  std::size_t end = at;
  while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
  if (end == at || end - at > 6) return -1;
  return std::stoi(s.substr(at, end - at));
}

template <class Read>
RankSummary summarize_with(Read read, bool detail) {
  RankSummary s;
  std::map<std::string, ClassTime> by_label;
  std::vector<std::pair<double, double>> spans;     // microseconds
  std::vector<std::pair<long long, double>> by_op;  // detail: External id, seconds
  std::map<long long, int> op_layer;                // detail: External id -> layer
  s.file = read([&](const ProfileEvent& e) {
    if (detail && e.ph == 'X' && e.external >= 0 &&
        (e.cat == "gpu_user_annotation" || e.cat == "user_annotation")) {
      const int layer = annotated_layer(e.name);
      if (layer >= 0) op_layer.emplace(e.external, layer);
    }
    if (!is_gpu_work(e) || !(e.dur >= 0.0)) return;
    const KernelClass c = kernel_class(e);
    ClassTime& t = by_label[c.label()];
    t.cls = c;
    t.seconds += e.dur * 1e-6;
    ++t.count;
    spans.emplace_back(e.ts, e.ts + e.dur);
    if (!detail) return;
    auto& k = s.kernel_s[e.name];
    k.first += e.dur * 1e-6;
    ++k.second;
    if (e.external >= 0) by_op.emplace_back(e.external, e.dur * 1e-6);
  });
  s.gpu_events = static_cast<long long>(spans.size());
  if (!spans.empty()) {
    std::sort(spans.begin(), spans.end());
    const double first = spans.front().first;
    double last = -std::numeric_limits<double>::infinity();
    double busy = 0.0, open = first, close = first;
    for (const auto& [a, b] : spans) {
      if (a > close) {
        busy += close - open;
        open = a;
      }
      close = std::max(close, b);
      last = std::max(last, b);
    }
    busy += close - open;
    s.start_us = first;
    s.span_s = (last - first) * 1e-6;
    s.busy_s = busy * 1e-6;
  }
  for (const auto& [op, seconds] : by_op)
    if (const auto it = op_layer.find(op); it != op_layer.end()) s.layer_s[it->second] += seconds;
  for (auto& [label, t] : by_label) s.classes.push_back(t);
  std::stable_sort(s.classes.begin(), s.classes.end(),
                   [](const ClassTime& a, const ClassTime& b) { return a.seconds > b.seconds; });
  return s;
}

}  // namespace

int annotated_layer(const std::string& name) {
  // stepsim's op names: a token "L<n>".
  for (std::size_t i = 0; i + 1 < name.size(); ++i)
    if (name[i] == 'L' && (i == 0 || name[i - 1] == ' ')) {
      const int n = digits_at(name, i + 1);
      std::size_t end = i + 1;
      while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
      if (n >= 0 && (end == name.size() || name[end] == ' ')) return n;
    }
  // Module paths: "layers.<n>", "layer_<n>", "layer.<n>".
  for (const char* key : {"layers.", "layer_", "layer."}) {
    const auto at = name.find(key);
    if (at != std::string::npos) {
      const int n = digits_at(name, at + std::string(key).size());
      if (n >= 0) return n;
    }
  }
  return -1;
}

RankSummary summarize(std::istream& in, const std::string& name, const engine::RunControl* control,
                      bool detail) {
  return summarize_with([&](const auto& visit) { return read_kineto(in, name, visit, control); },
                        detail);
}

RankSummary summarize(const std::string& path, const engine::RunControl* control, bool detail) {
  return summarize_with([&](const auto& visit) { return read_kineto(path, visit, control); },
                        detail);
}

}  // namespace stepsim::profile
