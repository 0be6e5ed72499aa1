// A profile's GPU time by kernel class, per rank (one trace file a rank, as the profiler writes
// them): each class's time, count and share of the span, and the span's idle time.
//
//   span = last end − first start over the file's GPU work (kernels, copies, fills);
//   busy = the length of the union of those intervals over every stream of the GPU;
//   idle = span − busy: time no stream of the GPU ran anything.
// A class's share is its time over the span; classes run on several streams at once, so shares
// can add up to more than 1 (the overlap), while busy and idle are per GPU.
// With `detail`, also the GPU time per kernel name and per layer: a kernel belongs to the layer
// its op's annotation names (the gpu_user_annotation, or any annotation, with the kernel's
// External id: "F mb3 L12 attn" as stepsim writes it, "layers.12" or "layer_12" as module paths
// do); kernels of annotations naming none are not in any layer.
// Memory: 16 bytes per GPU event (its interval, for the union; with detail, its External id and
// time too) besides the class table; the file itself is streamed (kineto_reader.hpp).
#pragma once

#include <istream>
#include <map>
#include <string>
#include <utility>
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
  double start_us = 0.0;  // the first GPU event's start, in the trace's microseconds
  double span_s = 0.0;
  double busy_s = 0.0;
  long long gpu_events = 0;
  std::vector<ClassTime> classes;  // longest first (ties by label)
  // With detail:
  std::map<int, double> layer_s;                                 // layer -> GPU seconds
  std::map<std::string, std::pair<double, long long>> kernel_s;  // name -> seconds, count
  double idle_s() const { return span_s - busy_s; }
};

RankSummary summarize(const std::string& path, const engine::RunControl* control = nullptr,
                      bool detail = false);
RankSummary summarize(std::istream& in, const std::string& name,
                      const engine::RunControl* control = nullptr, bool detail = false);

// The layer an annotation's name names, -1 for none.
int annotated_layer(const std::string& name);

}  // namespace stepsim::profile
