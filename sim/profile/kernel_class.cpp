#include "sim/profile/kernel_class.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>

namespace stepsim::profile {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_any(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](const char* w) { return text.find(w) != std::string::npos; });
}

// A collective's name as stepsim writes it, from PyTorch's ("allreduce", "_allgather_base") or
// NCCL's ("AllReduce").
std::string collective(const std::string& any) {
  const std::string c = lower(any);
  if (has_any(c, {"allreduce", "all_reduce"})) return "all_reduce";
  if (has_any(c, {"allgather", "all_gather"})) return "all_gather";
  if (has_any(c, {"reducescatter", "reduce_scatter"})) return "reduce_scatter";
  if (has_any(c, {"alltoall", "all_to_all"})) return "all_to_all";
  if (has_any(c, {"broadcast", "bcast"})) return "broadcast";
  if (has_any(c, {"sendrecv", "send", "recv"})) return "send_recv";
  if (c.find("reduce") != std::string::npos) return "reduce";
  return "";
}

std::string pass(const std::string& name) {
  for (const char* p : {"fprop", "dgrad", "wgrad"})
    if (name.find(p) != std::string::npos) return p;
  return "";
}

std::string pattern(const std::string& n) {
  if (has_any(n, {"norm"})) return "norm";
  if (has_any(n, {"softmax"})) return "softmax";
  if (has_any(n, {"copy", "cast", "convert", "transpose", "cat", "fill", "quantize"}))
    return "copy";
  if (has_any(n, {"gelu", "silu", "swiglu", "relu", "act"})) return "activation";
  if (has_any(n, {"reduce", "sum", "mean"})) return "reduce";
  if (has_any(n, {"elementwise", "vectorized", "unrolled"})) return "elementwise";
  return "other";
}

}  // namespace

bool is_gpu_work(const ProfileEvent& e) {
  return e.ph == 'X' && (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset");
}

KernelClass kernel_class(const ProfileEvent& e) {
  if (e.cat == "gpu_memcpy") return {"memcpy", ""};
  if (e.cat == "gpu_memset") return {"memset", ""};
  const std::string n = lower(e.name);
  if (n.rfind("nccl", 0) == 0) {
    std::string c = collective(e.collective);
    if (c.empty()) c = collective(e.name);
    return {"communication", c};
  }
  if (n.find("deep_ep") != std::string::npos)
    return {"communication", n.find("combine") != std::string::npos ? "combine" : "dispatch"};
  if (e.stepsim_class == "gemm") return {"gemm", pass(n)};
  if (e.stepsim_class == "attention") return {"attention", ""};
  if (e.stepsim_class == "memory") return {"memory-bound", pattern(n)};
  // Attention first: FlashAttention's kernels name CUTLASS types in their template arguments.
  if (has_any(n, {"flash", "fmha", "attn", "attention", "sdpa", "mha"})) return {"attention", ""};
  if (has_any(n, {"gemm", "cutlass", "cublas", "xmma", "wgmma", "deep_gemm", "matmul", "s16816",
                  "hmma"}))
    return {"gemm", pass(n)};
  return {"memory-bound", pattern(n)};
}

}  // namespace stepsim::profile
