// A profile's kernels as per-kernel measurements, in the CSV `stepsim calibrate import` reads
// (config/calibration_import.hpp, docs/calibration.md), so that a user's own profile calibrates
// the kernel tables as a microbenchmark sweep does. Each is one kernel's measured time for a
// known shape: calibration, like any microbenchmark. A whole step's time from a profile is not a
// kernel's and is never used.
//
// What is taken, from a trace recorded with record_shapes:
//  - GEMMs: the kernels classed gemm (kernel_class.hpp) whose op (the cpu_op with their External
//    id) is a matrix product with its inputs' dimensions: aten::mm [[M,K],[K,N]], aten::addmm
//    [bias, [M,K], [K,N]], aten::bmm and aten::baddbmm [[B,M,K],[B,K,N]] (B groups),
//    aten::linear [[..., K], [N, K], ...] (M the product of the leading dimensions); precision
//    from the first input's type (c10::BFloat16, c10::Half, float, c10::Float8_e4m3fn); the time
//    the op's GEMM kernels took together (a split-K GEMM's reduction kernel included); the
//    library from the kernel's name (cuBLAS: cublas, ampere_, sm80_, sm90_xmma; CUTLASS; DeepGEMM;
//    else measured); the pass unknown (a profile does not say it), so each row times every pass
//    its table is used for.
//  - Copies: device-to-device copies (gpu_memcpy "Memcpy DtoD") with their bytes: a copy of 2·bytes
//    read and written.
// A shape seen several times gives one row, the median of its times (a table holds one rate per
// shape). The metadata: gpu from deviceProperties, date from baseTimeNanoseconds, clock sustained
// (a training job's kernels run at the loaded clocks), tool naming the trace.
// Not taken: attention (its kernel's shape is in the attention op's arguments, and its causality
// in a scalar argument a profile records only with record_concrete_inputs), GEMMs of ops not
// listed, kernels whose op was not recorded with shapes (counted in `unshaped`).
#pragma once

#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"

namespace stepsim::profile {

struct TraceMeasurement {
  std::string what;  // "GEMM bf16 1024x1024x4096 (3 kernels, median 50.00 us)", for messages
  int csv_line = 0;  // its row's line in `csv`
};

struct TraceMeasurements {
  std::string csv;
  std::vector<TraceMeasurement> rows;
  int gemms = 0, copies = 0;
  long long unshaped = 0;  // GEMM kernels whose op has no shape
};

// Throws engine::UserError at the trace when it holds nothing to measure (with the hint to record
// shapes).
TraceMeasurements trace_measurements(const std::string& path,
                                     const engine::RunControl* control = nullptr);

}  // namespace stepsim::profile
