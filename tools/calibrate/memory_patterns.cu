// Memory-bound kernels by access pattern (spec::MemoryPattern), timed over sizes and printed as
// CSV `memory` rows with their pattern. Each kernel reads BF16 activations of `kHidden` columns:
//   copy            out = in · 0.25 (elementwise: one read, one write)       2·B
//   transpose       out = inᵀ through 32 x 32 shared-memory tiles             2·B
//   cast            BF16 -> FP8 E4M3, one fp32 scale per 1 x 128 tile         B + B/2 + B/64
//   cast_transpose  the cast, written row-major and transposed, one scale per
//                   32 x 32 tile                                              B + B + B/512
//   gather          rows by a random index (MoE permute)                       2·B + 4·rows
//   reduction       RMSNorm forward: a row's mean square, the row scaled by
//                   the weight, the fp32 1/rms kept                            2·B + 2·H + 4·rows
// with B the input's bytes. The sizes run from 2 MiB to 1 GiB of input. A run reads buffers the
// previous runs did not touch (the sizes cycle through sets of buffers spanning at least four
// times the L2 cache), so small kernels are timed from HBM, not from L2, as back-to-back
// kernels of a step mostly are.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "tools/calibrate/memory_patterns.hpp"

namespace {

constexpr int kHidden = 7168;  // DeepSeek-V3's hidden size: rows of 14 KiB in BF16

__global__ void scale_kernel(const __nv_bfloat16* in, __nv_bfloat16* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(__bfloat162float(in[i]) * 0.25f);
}

// Block (32, 8) per 32 x 32 tile of a rows x cols matrix.
__global__ void transpose_kernel(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols) {
  __shared__ __nv_bfloat16 tile[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  for (int y = threadIdx.y; y < 32; y += 8) {
    const int r = blockIdx.y * 32 + y;
    if (r < rows && c < cols) tile[y][threadIdx.x] = in[size_t(r) * cols + c];
  }
  __syncthreads();
  const int r = blockIdx.y * 32 + threadIdx.x;
  for (int y = threadIdx.y; y < 32; y += 8) {
    const int oc = blockIdx.x * 32 + y;
    if (oc < cols && r < rows) out[size_t(oc) * rows + r] = tile[threadIdx.x][y];
  }
}

// A warp per 1 x 128 tile: four elements a lane, the tile's amax by shuffles.
__global__ void cast_kernel(const __nv_bfloat16* in, __nv_fp8_e4m3* out, float* scales,
                            size_t tiles) {
  const int lane = threadIdx.x % 32;
  const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
  for (size_t t = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32; t < tiles; t += warps) {
    float v[4], amax = 0.0f;
    for (int j = 0; j < 4; ++j) {
      v[j] = __bfloat162float(in[t * 128 + lane * 4 + j]);
      amax = fmaxf(amax, fabsf(v[j]));
    }
    for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    const float s = amax > 0.0f ? 448.0f / amax : 1.0f;
    for (int j = 0; j < 4; ++j) out[t * 128 + lane * 4 + j] = __nv_fp8_e4m3(v[j] * s);
    if (lane == 0) scales[t] = 1.0f / s;
  }
}

// Block (32, 8) per 32 x 32 tile: the tile's amax, then the FP8 tile row-major and transposed.
__global__ void cast_transpose_kernel(const __nv_bfloat16* in, __nv_fp8_e4m3* out,
                                      __nv_fp8_e4m3* out_t, float* scales, int rows, int cols) {
  __shared__ float tile[32][33];
  __shared__ float warp_max[8];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float amax = 0.0f;
  for (int y = threadIdx.y; y < 32; y += 8) {
    const int r = blockIdx.y * 32 + y;
    const float v = r < rows && c < cols ? __bfloat162float(in[size_t(r) * cols + c]) : 0.0f;
    tile[y][threadIdx.x] = v;
    amax = fmaxf(amax, fabsf(v));
  }
  for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  if (threadIdx.x == 0) warp_max[threadIdx.y] = amax;
  __syncthreads();
  for (int w = 0; w < 8; ++w) amax = fmaxf(amax, warp_max[w]);
  const float s = amax > 0.0f ? 448.0f / amax : 1.0f;
  for (int y = threadIdx.y; y < 32; y += 8) {
    const int r = blockIdx.y * 32 + y;
    if (r < rows && c < cols) out[size_t(r) * cols + c] = __nv_fp8_e4m3(tile[y][threadIdx.x] * s);
    const int tr = blockIdx.y * 32 + threadIdx.x, tc = blockIdx.x * 32 + y;
    if (tr < rows && tc < cols)
      out_t[size_t(tc) * rows + tr] = __nv_fp8_e4m3(tile[threadIdx.x][y] * s);
  }
  if (threadIdx.x == 0 && threadIdx.y == 0)
    scales[size_t(blockIdx.y) * gridDim.x + blockIdx.x] = 1.0f / s;
}

// A block per output row, 16-byte vectors.
__global__ void gather_kernel(const uint4* in, uint4* out, const int* index, int rows) {
  constexpr int kVectors = kHidden * 2 / 16;
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const uint4* src = in + size_t(index[r]) * kVectors;
    uint4* dst = out + size_t(r) * kVectors;
    for (int i = threadIdx.x; i < kVectors; i += blockDim.x) dst[i] = src[i];
  }
}

// A block of 256 threads per row.
__global__ void rmsnorm_kernel(const __nv_bfloat16* in, const __nv_bfloat16* weight,
                               __nv_bfloat16* out, float* rstd, int rows) {
  __shared__ float partial[8];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const __nv_bfloat16* x = in + size_t(r) * kHidden;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < kHidden; i += blockDim.x) {
      const float v = __bfloat162float(x[i]);
      sum += v * v;
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) total += partial[w];
    const float inv = rsqrtf(total / kHidden + 1e-6f);
    for (int i = threadIdx.x; i < kHidden; i += blockDim.x)
      out[size_t(r) * kHidden + i] =
          __float2bfloat16(__bfloat162float(x[i]) * inv * __bfloat162float(weight[i]));
    if (threadIdx.x == 0) rstd[r] = inv;
    __syncthreads();
  }
}

__global__ void fill_kernel(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13, x *= 0x5bd1e995u, x ^= x >> 15;
    p[i] = __float2bfloat16((x & 0xffff) / 32768.0f - 1.0f);
  }
}

__global__ void index_kernel(int* index, int rows) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
    index[i] = static_cast<int>((static_cast<unsigned>(i) * 2654435761u) % rows);
}

// One set of buffers a run reads and writes.
struct Buffers {
  __nv_bfloat16* in = nullptr;
  void* out = nullptr;     // outputs, up to twice the input's bytes
  float* extra = nullptr;  // scales or rstd
  int* index = nullptr;
  __nv_bfloat16* weight = nullptr;
};

void free_all(std::vector<Buffers>& bufs) {
  for (auto& b : bufs) {
    cudaFree(b.in);
    cudaFree(b.out);
    cudaFree(b.extra);
    cudaFree(b.index);
    cudaFree(b.weight);
  }
}

}  // namespace

namespace stepsim_calibrate {

void time_memory_patterns(const TimeFn& sustained, double seconds, size_t l2_bytes, int sms) {
  const char* patterns[] = {"copy", "transpose", "cast", "cast_transpose", "gather", "reduction"};
  for (size_t rows = 128; rows <= (size_t(1) << 30) / (kHidden * 2); rows *= 2) {
    const size_t n = rows * kHidden, in_bytes = n * 2;
    // Enough sets that a run's buffers were last touched four L2 sizes ago.
    const size_t sets = std::max<size_t>(1, (4 * l2_bytes) / (3 * in_bytes) + 1);
    std::vector<Buffers> bufs(sets);
    bool ok = true;
    for (auto& b : bufs) {
      ok = ok && cudaMalloc(&b.in, in_bytes) == cudaSuccess &&
           cudaMalloc(&b.out, 2 * in_bytes) == cudaSuccess &&
           cudaMalloc(&b.extra, rows * kHidden / 32 * sizeof(float)) == cudaSuccess &&
           cudaMalloc(&b.index, rows * sizeof(int)) == cudaSuccess &&
           cudaMalloc(&b.weight, kHidden * 2) == cudaSuccess;
      if (!ok) break;
      fill_kernel<<<1024, 256>>>(b.in, n, 7);
      fill_kernel<<<64, 256>>>(b.weight, kHidden, 11);
      index_kernel<<<256, 256>>>(b.index, static_cast<int>(rows));
    }
    if (!ok || cudaDeviceSynchronize() != cudaSuccess) {
      std::fprintf(stderr, "stepsim-calibrate: no memory for %zu-row memory kernels\n", rows);
      free_all(bufs);
      cudaGetLastError();
      return;
    }
    const int r = static_cast<int>(rows);
    const dim3 tiles(kHidden / 32, (r + 31) / 32), block(32, 8);
    for (int p = 0; p < 6; ++p) {
      size_t next = 0;
      auto run = [&] {
        Buffers& b = bufs[next++ % sets];
        auto* out16 = static_cast<__nv_bfloat16*>(b.out);
        auto* out8 = static_cast<__nv_fp8_e4m3*>(b.out);
        switch (p) {
          case 0:
            scale_kernel<<<sms * 8, 256>>>(b.in, out16, n);
            break;
          case 1:
            transpose_kernel<<<tiles, block>>>(b.in, out16, r, kHidden);
            break;
          case 2:
            cast_kernel<<<sms * 8, 256>>>(b.in, out8, b.extra, n / 128);
            break;
          case 3:
            cast_transpose_kernel<<<tiles, block>>>(b.in, out8, out8 + n, b.extra, r, kHidden);
            break;
          case 4:
            gather_kernel<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(b.in),
                                            static_cast<uint4*>(b.out), b.index, r);
            break;
          default:
            rmsnorm_kernel<<<sms * 8, 256>>>(b.in, b.weight, out16, b.extra, r);
            break;
        }
      };
      const double t = sustained(run, seconds / 4);
      const double bytes[] = {2.0 * in_bytes,
                              2.0 * in_bytes,
                              in_bytes + in_bytes / 2.0 + in_bytes / 64.0,
                              2.0 * in_bytes + in_bytes / 512.0,
                              2.0 * in_bytes + 4.0 * rows,
                              2.0 * in_bytes + 2.0 * kHidden + 4.0 * rows};
      std::printf("memory,,,,,,,,,,%.0f,%.3f,,,,%s\n", bytes[p], t * 1e6, patterns[p]);
      std::fflush(stdout);
    }
    free_all(bufs);
  }
}

}  // namespace stepsim_calibrate
