// The class of a GPU event of a profile, for summaries and for comparing a profile with a
// simulated step: stepsim's kernel classes (hw/kernel.hpp: gemm, attention, memory-bound),
// communication by collective, and the copies and fills the profiler records apart.
//
// Rules, in order:
//  - category gpu_memcpy: `memcpy`, gpu_memset: `memset` (Kineto's categories);
//  - a name starting with "nccl" (NCCL's kernels: ncclKernel_*, ncclDevKernel_*, as HTA's
//    kernel-type rule has it): `communication`, by the PyTorch collective name in its args
//    ("Collective name"), else by the function in its name (AllReduce, AllGather, ...), written
//    as stepsim names collectives (all_reduce, all_gather, reduce_scatter, all_to_all, broadcast,
//    send_recv); a name holding "deep_ep" (DeepEP's kernels): `communication`, dispatch or
//    combine;
//  - a kernel stepsim wrote (args "stepsim class"): that class; a GEMM's detail its pass from its
//    name (fprop, dgrad, wgrad);
//  - otherwise by name, case-insensitive: attention kernels (flash, fmha, attn, attention, sdpa,
//    mha) are `attention` (first: FlashAttention's names hold CUTLASS types); GEMMs (gemm,
//    cutlass, cublas, xmma, wgmma, deep_gemm, matmul, s16816, hmma) `gemm`, their pass in the
//    detail when the name says it; every other kernel
//    `memory-bound`, its detail the first pattern its name shows: norm, softmax, copy (copy, cast,
//    convert, transpose, cat, fill), activation (gelu, silu, swiglu, relu, act), reduce (reduce,
//    sum, mean), elementwise (elementwise, vectorized, unrolled), else other.
// Not known from a profile alone: a cuBLAS GEMM's pass (its name does not say it; the cpu_op that
// launched it would), fused kernels that do several of these.
#pragma once

#include <string>

#include "sim/profile/kineto_reader.hpp"

namespace stepsim::profile {

struct KernelClass {
  std::string group;   // gemm, attention, memory-bound, communication, memcpy, memset
  std::string detail;  // pass, collective or pattern; "" when unknown
  std::string label() const { return detail.empty() ? group : group + " " + detail; }
};

// Whether the event is GPU work (a kernel, copy or fill: category kernel, gpu_memcpy, gpu_memset).
bool is_gpu_work(const ProfileEvent& e);
KernelClass kernel_class(const ProfileEvent& e);

}  // namespace stepsim::profile
