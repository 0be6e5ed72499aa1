// The kernels one GPU of a pipeline rank runs over the step, added up per kernel class, for the
// roofline chart: each class's FLOPs (the kernels' own, recomputed forwards included), HBM bytes
// and seconds in its stream (execution plus gap, at the SM share the program leaves compute:
// KernelModel::seconds), so that its arithmetic intensity is flops / bytes and its achieved rate
// flops / seconds. Classes: GEMMs and grouped GEMMs (the experts') per precision, attention
// forward and backward per precision, and memory-bound kernels (norms, activations, casts,
// quantisation, the optimizer) as one. A fold over the step program, as the roofline's: each
// chain's kernels once, times the chunks of the rank that run it, and the rank's tail.
// Left out: launch overheads (they are the host's, not a kernel's) and stragglers' slowdown.
#pragma once

#include <string>
#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::analysis {

struct KernelClassWork {
  std::string name;      // "GEMM fp8", "grouped GEMM fp8", "attention bwd bf16", "memory-bound"
  double kernels = 0.0;  // launches per step
  double flops = 0.0;
  double bytes = 0.0;
  double seconds = 0.0;
};

// The classes pipeline rank `rank` runs, largest share of time first (ties by name).
std::vector<KernelClassWork> kernel_classes(const workload::StepProgram& program,
                                            const hw::KernelModel& kernels, int rank);

// Every compute work's kernels, each timed alone (KernelModel::seconds at the program's SM
// share): per chain and work of the program, and per pipeline rank and work of its tail.
struct KernelTimes {
  std::vector<std::vector<std::vector<double>>> chains;  // [chain][work][kernel]
  std::vector<std::vector<std::vector<double>>> tails;   // [rank][work][kernel]
  // Work `work` of chain `chain` (workload::kTailChain: of rank `rank`'s tail).
  const std::vector<double>& of(int chain, int work, int rank) const;
};
KernelTimes kernel_times(const workload::StepProgram& program, const hw::KernelModel& kernels);

}  // namespace stepsim::analysis
