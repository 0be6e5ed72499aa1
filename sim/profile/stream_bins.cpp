#include "sim/profile/stream_bins.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/profile/kernel_class.hpp"

namespace stepsim::profile {

namespace {

template <class Read>
BinnedStreams bin_with(Read read, double start_us, double end_us, int bins) {
  BinnedStreams b;
  b.start_us = start_us;
  b.end_us = std::max(end_us, start_us + 1e-3);
  b.bins = std::max(bins, 1);
  const double width = (b.end_us - b.start_us) / b.bins;
  std::map<std::string, int> label_of;
  // Per stream: per bin, the time of each label.
  std::map<long long, std::vector<std::vector<double>>> acc;
  read([&](const ProfileEvent& e) {
    if (!is_gpu_work(e) || !(e.dur > 0.0)) return;
    const std::string label = kernel_class(e).label();
    const auto [it, fresh] = label_of.emplace(label, static_cast<int>(b.labels.size()));
    if (fresh) b.labels.push_back(label);
    auto& stream = acc[e.tid];
    if (stream.empty()) stream.resize(static_cast<std::size_t>(b.bins));
    const double lo = std::max(e.ts, b.start_us), hi = std::min(e.ts + e.dur, b.end_us);
    if (!(hi > lo)) return;
    const int first = std::clamp(static_cast<int>((lo - b.start_us) / width), 0, b.bins - 1);
    const int last = std::clamp(static_cast<int>((hi - b.start_us) / width), 0, b.bins - 1);
    for (int i = first; i <= last; ++i) {
      const double a = std::max(lo, b.start_us + i * width);
      const double z = std::min(hi, b.start_us + (i + 1) * width);
      if (!(z > a)) continue;
      auto& cell = stream[static_cast<std::size_t>(i)];
      if (cell.size() <= static_cast<std::size_t>(it->second)) cell.resize(b.labels.size());
      cell[static_cast<std::size_t>(it->second)] += z - a;
    }
  });
  for (auto& [tid, stream] : acc) {
    StreamBins s;
    s.stream = tid;
    for (const auto& cell : stream) {
      double total = 0.0, most = 0.0;
      int top = -1;
      for (std::size_t l = 0; l < cell.size(); ++l) {
        total += cell[l];
        if (cell[l] > most) {
          most = cell[l];
          top = static_cast<int>(l);
        }
      }
      s.top.push_back(top);
      s.busy.push_back(std::min(1.0, total / width));
    }
    b.streams.push_back(std::move(s));
  }
  return b;
}

}  // namespace

BinnedStreams bin_streams(const std::string& path, double start_us, double end_us, int bins,
                          const engine::RunControl* control) {
  return bin_with([&](const auto& visit) { read_kineto(path, visit, control); }, start_us, end_us,
                  bins);
}

BinnedStreams bin_streams(std::istream& in, const std::string& name, double start_us, double end_us,
                          int bins, const engine::RunControl* control) {
  return bin_with([&](const auto& visit) { read_kineto(in, name, visit, control); }, start_us,
                  end_us, bins);
}

}  // namespace stepsim::profile
