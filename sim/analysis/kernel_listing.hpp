// What one GPU of a pipeline stage launches for one layer of each kind (dense, MoE, embedding,
// head), per phase: F (forward), B (input gradient, the recomputed ops' forward first) and W
// (weight gradient), one row per kernel with its class, shape, FLOPs, HBM bytes, precision, the
// rate the kernel model used (attention in FlashAttention's FLOP convention, as its tables) and
// the table row or rule it came from, and its time (execution plus the gap). Totals per layer and
// phase run the phase's kernels as the simulation does, the host issuing one per launch overhead.
// A user checks these against a profile of their own (`stepsim kernels`, report/kernel_report.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/spec/scenario.hpp"
#include "sim/workload/parallel_plan.hpp"
#include "sim/workload/phase.hpp"

namespace stepsim::analysis {

struct KernelRow {
  std::string layer;  // "layer 3 (moe)", "embedding", "head"
  workload::Phase phase = workload::Phase::forward;
  std::string op, kernel, cls, shape, precision;
  std::string pass;        // fprop, dgrad, wgrad, forward (recomputed too), backward
  bool recompute = false;  // a forward rerun ahead of its backward
  // The software that ran the kernel: the library of the table its rate came from ("deepgemm",
  // "cublas", "flash3"), or "generic" (the device's achievable rate) where no table covers it.
  std::string implementation;
  std::string attention;  // the attention core's kernels: training.attention_kernel's word
  double flops = 0.0, bytes = 0.0, rate = 0.0, seconds = 0.0;
  std::string rule;
  std::string source;  // the table its rate came from, or "device"
};

// A layer's phase: its kernels as one stream runs them, the host issuing one per launch overhead.
struct KernelTotal {
  std::string layer;
  workload::Phase phase = workload::Phase::forward;
  double seconds = 0.0;
};

struct KernelListing {
  std::string scenario;        // its name
  std::string software_words;  // the preset and what it chose (spec::software_words)
  std::string software;        // the scenario's preset (spec::SoftwareSpec)
  std::string gemm_library;    // the preset's GEMM library (empty: any table's)
  std::string attention;       // its attention core's implementation, and dropout where it has one
  int stage = 0;
  double sm_share = 1.0;
  double sustained_clock = 1.0;
  std::vector<KernelRow> rows;
  std::vector<KernelTotal> totals;
};

// `plan`: the scenario's layout (workload::make_plan).
KernelListing list_kernels(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan,
                           int stage);

}  // namespace stepsim::analysis
