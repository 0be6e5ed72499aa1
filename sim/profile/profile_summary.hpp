// A profile's GPU time by kernel class, per rank (one trace file a rank, as the profiler writes
// them): each class's time, count and share of the span, and the span's idle time.
//
//   span = last end − first start over the file's GPU work (kernels, copies, fills);
//   busy = the length of the union of those intervals over every stream of the GPU;
//   idle = span − busy: time no stream of the GPU ran anything.
// A class's share is its time over the span; classes run on several streams at once, so shares
// can add up to more than 1 (the overlap), while busy and idle are per GPU.
// Memory: 16 bytes per GPU event (its interval, for the union) besides the class table; the file
// itself is streamed (kineto_reader.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/profile/kernel_class.hpp"

namespace stepsim::profile {

struct ClassTime {
  KernelClass cls;
  double seconds = 0.0;
  long long count = 0;
};

struct RankSummary {
  ProfileFile file;
  double span_s = 0.0;
  double busy_s = 0.0;
  long long gpu_events = 0;
  std::vector<ClassTime> classes;  // longest first (ties by label)
  double idle_s() const { return span_s - busy_s; }
};

RankSummary summarize(const std::string& path, const engine::RunControl* control = nullptr);

}  // namespace stepsim::profile
