// The simulated step as a Chrome Trace Event Format file (Perfetto, chrome://tracing).
//
// Process = node, thread = one GPU's stream (compute, comm, p2p, dp): each pipeline rank is shown
// on its first GPU. Complete events ("X") named by operation ("attn fwd", "dispatch", "experts
// bwd": a few dozen names, so that views aggregating by name work) with args (the op's full
// name "F mb12 L4 attn", phase, micro-batch, stage, layer, FLOPs, bytes; a communication op's
// peers it waits for: `waited_for`, the copy of a collective over symmetry classes whose rank was
// ready last, and `paced_by`, the GPU whose speed sets its device's pace under faults or
// variability, with that pace); flow arrows from each
// pipeline send to the op that consumes it; counters per pipeline rank of the memory in use and
// of its GPU's NVLink and InfiniBand throughput (each transfer's bytes per GPU over its
// duration). Times are in microseconds. `ranks` selects pipeline ranks (all when empty);
// `detail`:
//  - op: one event per operation (the default);
//  - layer: a stream's consecutive ops of one layer, micro-batch and phase merged into one event
//    ("layer fwd", "layer comm bwd"), spanning the waits between them (args: ops, busy_us): about
//    0.4 of the events under 1F1B, 0.9 under DualPipe, whose compute stream alternates between two
//    micro-batches' layers;
//  - kernel: each compute op's event holds, nested in it, one event per kernel it launched, in
//    launch order (category gpu_kernel), named as `stepsim kernels` lists them ("qkv_proj fprop",
//    "attn_core softmax"; args: class, precision, shape, FLOPs, HBM bytes, its time alone). Each
//    kernel's share of the op's span is its share of the kernel model's time for the op's kernels
//    (execution and launch gap), so a slowed op's kernels are slowed alike. Measured on pipeline
//    ranks 0-1, the trace then has 4.6 times the events for GPT-3 (interleaved), 10.2 for
//    DualPipe, 10.9 for DeepSeek-V3 1F1B; 13.6 for ZeRO-3 (one rank).
#pragma once

#include <string>
#include <vector>

#include "sim/run/pipeline.hpp"

namespace stepsim::report {

enum class TraceDetail { op, layer, kernel };
// Events per operation of the step, for the trace's size before it is simulated (measured on the
// shipped scenarios, rounded up).
inline constexpr double kTraceEventsPerOp[] = {1.0, 0.9, 14.0};

struct TraceOptions {
  std::vector<int> ranks;
  TraceDetail detail = TraceDetail::op;
  // The command's wall-clock budget and signal flag, checked once per pipeline rank and before
  // each sort (engine::Stopped): a large trace cannot outlast --max-wall by more than one rank's
  // work.
  const engine::RunControl* control = nullptr;
};

// Memory a trace takes while it is built and written, per estimated event: the DualPipe trace is
// 160 B per event on disk, twice that while its string grows, rounded up.
constexpr double kTraceBytesPerEvent = 600.0;

std::string chrome_trace(const run::Result& s, const TraceOptions& o);

}  // namespace stepsim::report
