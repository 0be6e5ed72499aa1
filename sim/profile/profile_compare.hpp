// A profile of one GPU against the simulated step's same GPU: per kernel class, per layer and per
// kernel name, the measured and the simulated time and their ratio (measured / simulated).
//
// The simulated side is the trace stepsim writes of that GPU (report/kineto_trace.hpp),
// summarized by the same rules (profile_summary.hpp, kernel_class.hpp), so both sides are classed
// alike and a profile of the simulated step itself compares at 1 everywhere. Layers are aligned
// by the number their op annotations name (stepsim's "F mb3 L12 attn"; module paths
// "layers.12"); a profile whose annotations name none has no per-layer rows. Classes the profile
// has and the simulated step does not (copies, fills, kernels stepsim does not model) are listed
// with no simulated time, not dropped; classes the step has and the profile does not are listed
// with no measured time. Where one side does not say a class's detail for a whole group (a
// profile's GEMMs: cuBLAS names do not give the pass), the other side's rows of that group are
// summed into one, so that both compare at the level both can say.
#pragma once

#include <string>
#include <vector>

#include "sim/profile/profile_summary.hpp"

namespace stepsim::profile {

struct CompareRow {
  std::string label;
  double measured_s = 0.0, simulated_s = 0.0;
  long long measured_count = 0, simulated_count = 0;
  // measured / simulated; 0 when either side has none.
  double ratio() const {
    return measured_s > 0.0 && simulated_s > 0.0 ? measured_s / simulated_s : 0.0;
  }
};

struct Comparison {
  RankSummary measured, simulated;
  std::vector<CompareRow> classes;  // the profile's classes (longest first), then the step's others
  std::vector<CompareRow> layers;   // by layer number, those either side has
  std::vector<CompareRow>
      kernels;  // the `top` kernel names whose times differ most (none if equal)
};

// Both summaries with detail (summarize(..., detail = true)).
Comparison compare(const RankSummary& measured, const RankSummary& simulated, int top = 10);

}  // namespace stepsim::profile
