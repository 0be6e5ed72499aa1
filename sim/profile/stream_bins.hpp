// A GPU's streams over a span, in equal bins, for drawing a profile's timeline beside a simulated
// one (`stepsim trace compare --html`) without an element per kernel: per stream and bin, the
// kernel class that ran longest in the bin and the share of the bin any kernel ran. A DualPipe
// rank's 31,600 kernels over 18 s become a few runs per stream and class.
// Memory: bins × classes numbers per stream; the trace is read again, streamed.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "sim/profile/kineto_reader.hpp"

namespace stepsim::profile {

struct StreamBins {
  long long stream = 0;      // the events' tid (the CUDA stream)
  std::vector<int> top;      // per bin: an index into BinnedStreams::labels, -1 when nothing ran
  std::vector<double> busy;  // per bin: the share of it some kernel of the stream ran
};

struct BinnedStreams {
  double start_us = 0.0, end_us = 0.0;
  int bins = 0;
  std::vector<std::string> labels;  // class labels (KernelClass::label), as met
  std::vector<StreamBins> streams;  // by stream id
};

BinnedStreams bin_streams(const std::string& path, double start_us, double end_us, int bins,
                          const engine::RunControl* control = nullptr);
BinnedStreams bin_streams(std::istream& in, const std::string& name, double start_us, double end_us,
                          int bins, const engine::RunControl* control = nullptr);

}  // namespace stepsim::profile
