#include "sim/profile/kernel_class.hpp"

#include <doctest/doctest.h>

using namespace stepsim;

namespace {

std::string label_of(const std::string& name, const std::string& cat = "kernel",
                     const std::string& collective = "", const std::string& stepsim = "") {
  profile::ProfileEvent e;
  e.ph = 'X';
  e.cat = cat;
  e.name = name;
  e.collective = collective;
  e.stepsim_class = stepsim;
  return profile::kernel_class(e).label();
}

}  // namespace

TEST_CASE("Kernel classes of real kernel names") {
  CHECK(label_of("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn") == "gemm");
  CHECK(label_of("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas") == "gemm");
  CHECK(label_of("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm>") == "gemm");
  CHECK(label_of("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128>>") == "attention");
  CHECK(label_of("void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>") ==
        "memory-bound norm");
  CHECK(label_of("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4>") ==
        "memory-bound softmax");
  CHECK(label_of("void at::native::vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>") ==
        "memory-bound activation");
  CHECK(label_of("void at::native::elementwise_kernel<128, 2, AddFunctor>") ==
        "memory-bound elementwise");
  CHECK(label_of("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
        "communication all_gather");
  CHECK(label_of("ncclKernel_AllReduce_RING_LL_Sum_bfloat16(ncclWorkElem)", "kernel",
                 "allreduce") == "communication all_reduce");
  CHECK(label_of("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)") ==
        "communication send_recv");
  CHECK(label_of("ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE", "kernel",
                 "_reduce_scatter_base") == "communication reduce_scatter");
  CHECK(label_of("void deep_ep::internode::combine<false, 8>") == "communication combine");
  CHECK(label_of("Memcpy DtoD (Device -> Device)", "gpu_memcpy") == "memcpy");
  CHECK(label_of("Memset (Device)", "gpu_memset") == "memset");
}

TEST_CASE("Kernels stepsim wrote: their class as written, a GEMM's pass from its name") {
  CHECK(label_of("qkv_proj dgrad", "kernel", "", "gemm") == "gemm dgrad");
  CHECK(label_of("expert_up wgrad", "kernel", "", "gemm") == "gemm wgrad");
  CHECK(label_of("attn_core fwd", "kernel", "", "attention") == "attention");
  CHECK(label_of("attn_norm", "kernel", "", "memory") == "memory-bound norm");
  CHECK_FALSE(profile::is_gpu_work({}));
}
