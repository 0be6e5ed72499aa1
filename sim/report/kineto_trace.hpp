// The simulated step as PyTorch profiler traces: one JSON file per GPU shown, shaped as Kineto
// writes them, so that Holistic Trace Analysis (HTA), Perfetto and scripts written for real
// profiles read them.
//
// The format, from its public sources: Kineto's JSON writer (pytorch/kineto,
// libkineto/src/output_json.cpp): a top-level object with `schemaVersion`, `distributedInfo`
// (backend, rank, world_size, pg_count, pg_config: one entry per process group with pg_name,
// pg_desc, backend_config, pg_size, ranks; nccl_version), `deviceProperties` and `traceEvents`;
// complete events ("X") with keys in the order ph, cat, name, pid, tid, ts, dur, args, times in
// microseconds; a GPU's events under pid = its device index, tid = its stream. What HTA's parser
// needs (facebookresearch/HolisticTraceAnalysis, hta/common/trace_parser.py and trace_file.py):
// the rank found in the file's text by the pattern `"rank":\s+(\d+)` (so distributedInfo comes
// first, written with a space after the colon), every event with ph, cat, name, pid, tid, ts and
// dur, and GPU events with args `stream` and `correlation` (>= 0); it classes a kernel as
// communication when its name starts with "nccl", as memory when it starts with "Memcpy" or
// "Memset", else as computation.
//
// What a file holds, for one simulated GPU (the first GPU of a pipeline rank's first symmetry
// class, as the Chrome trace shows it), over one step:
//  - per op of the step, a `gpu_user_annotation` event on its stream spanning it (name: the op's
//    full name, "F mb12 L4 attn"; args: External id), as a `record_function` range shows on the
//    GPU;
//  - inside it, category `kernel`: a compute op's kernels in launch order, each over its share of
//    the op's span (its time alone over the op's kernels' time alone, as --trace-detail kernel
//    splits them), named as `stepsim kernels` lists them ("qkv_proj fprop"), args device,
//    stream, correlation, External id and stepsim's own: class, pass, precision, shape, FLOPs,
//    HBM bytes; a communication op's collectives, each over its share of the op's bytes, named as
//    NCCL 2.19+ names its kernels ("ncclDevKernel_AllGather_RING_LL"; a pipeline send
//    "ncclDevKernel_SendRecv"; an expert exchange as DeepEP's kernels,
//    "deep_ep::internode::dispatch"), with the args PyTorch records for them (Collective name,
//    In and Out msg nelems, Group size, dtype, In and Out split size, Process Group Name and
//    Ranks); a wait for the slowest peer before a collective is part of that collective's
//    kernel, which spins through it on a real GPU;
//  - a buffer zeroing (ZeRO-3's deepspeed-0.5) as category `gpu_memset`, "Memset (Device)";
//  - one `user_annotation` "ProfilerStep#1" over the step on the host's thread.
// Not written: the host's own events (cpu_op, cuda_runtime launches and their ac2g flows: stepsim
// does not simulate the host's issue times), so HTA's idle-time breakdown, which attributes GPU
// idle time to the host through the launches, has nothing to read; its temporal breakdown,
// kernel breakdown and communication–computation overlap read the kernels.
#pragma once

#include <string>
#include <vector>

#include "sim/run/pipeline.hpp"

namespace stepsim::report {

// The files of the GPUs shown: those of pipeline ranks `ranks` (all when empty), in rank order.
struct KinetoFile {
  int rank = 0;              // pipeline rank
  int gpu = 0;               // global rank of the GPU it shows
  std::string name() const;  // "rank-<gpu>.pt.trace.json"
};
std::vector<KinetoFile> kineto_files(const workload::ParallelPlan& plan,
                                     const std::vector<int>& ranks);

// The file of pipeline rank `rank`'s GPU; `control` is checked once per stream (engine::Stopped).
std::string kineto_trace(const run::Result& s, int rank,
                         const engine::RunControl* control = nullptr);

}  // namespace stepsim::report
