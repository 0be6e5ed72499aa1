// stepsim-calibrate: kernel microbenchmarks on this GPU, written as the CSV that
// `stepsim calibrate import` reads (docs/calibration.md).
//
//   stepsim-calibrate [--shapes KERNELS.csv] [--seconds S] > sweep.csv
//
// GEMMs through cuBLASLt, BF16 and (compute capability 9.0 and up) FP8 E4M3 with fp32 scales,
// BF16 output, fp32 accumulation; a grouped GEMM of G experts as a strided batch of G equal
// GEMMs (the contiguous layout with equal rows per expert). Shapes: the GEMM rows of
// `stepsim kernels SCENARIO --csv` when --shapes names such a file, each in its pass's operand
// layout (fprop, dgrad, wgrad: the CSV's pass column, the row's `pass`), otherwise the shipped
// models' main shapes as forward GEMMs. Inputs are random (uniform in [-1, 1)): zeros draw less
// power and run faster. Each shape first runs for S seconds (default 2) to reach the clocks the
// GPU holds under load, then is timed over the same span with CUDA events: the rows are
// sustained-clock measurements, each naming its library (cublas). Then the memory-bound kernels
// of each access pattern (copy, transpose, cast, cast_transpose, gather, reduction) over sizes
// (memory_patterns.cu), each row naming its pattern. Attention is not measured here:
// FlashAttention's own benchmark script gives its rows (docs/calibration.md).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/calibrate/memory_patterns.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "stepsim-calibrate: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "stepsim-calibrate: %s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

struct Shape {
  std::string precision;  // "bf16" or "fp8"
  long long m, n, k;
  int groups;
  std::string pass = "any";  // any (a forward GEMM), fprop, dgrad or wgrad
};

__global__ void fill_random(unsigned char* p, size_t bytes, unsigned seed, int fp8) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += gridDim.x * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13, x *= 0x5bd1e995u, x ^= x >> 15;
    const float v = (x & 0xffff) / 32768.0f - 1.0f;
    if (fp8) {
      p[i] = __nv_fp8_e4m3(v).__x;
    } else if (i % 2 == 0 && i + 1 < bytes) {
      const __nv_bfloat16 b = __float2bfloat16(v);
      std::memcpy(p + i, &b, 2);
    }
  }
}

void* random_buffer(size_t bytes, int fp8, unsigned seed) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  fill_random<<<1024, 256>>>(static_cast<unsigned char*>(p), bytes, seed, fp8);
  check(cudaGetLastError(), "fill");
  return p;
}

// Runs `f` for `seconds` untimed, then as many times again timed; returns seconds per run.
template <class F>
double sustained(F f, double seconds) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  long long runs = 0;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
         seconds) {
    for (int i = 0; i < 10; ++i) f();
    check(cudaDeviceSynchronize(), "warm-up");
    runs += 10;
  }
  check(cudaEventRecord(a), "record");
  for (long long i = 0; i < runs; ++i) f();
  check(cudaEventRecord(b), "record");
  check(cudaEventSynchronize(b), "sync");
  float ms = 0.0f;
  check(cudaEventElapsedTime(&ms, a, b), "elapsed");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms * 1e-3 / static_cast<double>(runs);
}

double time_gemm(cublasLtHandle_t lt, const Shape& s, double seconds, void* workspace,
                 size_t workspace_bytes) {
  const bool fp8 = s.precision == "fp8";
  const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
  const size_t elem = fp8 ? 1 : 2;
  const long long g = s.groups;
  // Row-major C[M,N] = A[M,K]·W[N,K]ᵀ is column-major Cᵀ[N,M] = W·Aᵀ: cuBLASLt's A is W stored
  // K×N and transposed, its B is A stored K×M: the "TN" layout of a forward GEMM, and the one
  // FP8 requires (frameworks give FP8 GEMMs transposed copies). In BF16 the other passes run in
  // the layouts their operands lie in: an input gradient C = dY[M,K]·W[K,N] is "NN" (cuBLASLt's
  // A is W stored N×K), a weight gradient C = dY[K,M]ᵀ·X[K,N] is "NT" (its B is dY stored M×K
  // and transposed).
  const bool nn = !fp8 && s.pass == "dgrad", nt = !fp8 && s.pass == "wgrad";
  void* a = random_buffer(g * s.m * s.k * elem, fp8, 1);
  void* b = random_buffer(g * s.n * s.k * elem, fp8, 2);
  void* c = nullptr;
  check(cudaMalloc(&c, g * s.m * s.n * 2), "cudaMalloc");
  cublasLtMatmulDesc_t op;
  check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
  const cublasOperation_t trans_a = nn || nt ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t trans_b = nt ? CUBLAS_OP_T : CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a),
        "transa");
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b),
        "transb");
  float* scale = nullptr;
  if (fp8) {
    const float one = 1.0f;
    check(cudaMalloc(&scale, sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(scale, &one, sizeof one, cudaMemcpyHostToDevice), "memcpy");
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale,
                                         sizeof scale),
          "a scale");
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale,
                                         sizeof scale),
          "b scale");
  }
  cublasLtMatrixLayout_t la, lb, lc;
  if (trans_a == CUBLAS_OP_T)
    check(cublasLtMatrixLayoutCreate(&la, in, s.k, s.n, s.k), "layout a");
  else
    check(cublasLtMatrixLayoutCreate(&la, in, s.n, s.k, s.n), "layout a");
  if (trans_b == CUBLAS_OP_N)
    check(cublasLtMatrixLayoutCreate(&lb, in, s.k, s.m, s.k), "layout b");
  else
    check(cublasLtMatrixLayoutCreate(&lb, in, s.m, s.k, s.m), "layout b");
  check(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, s.n, s.m, s.n), "layout c");
  if (g > 1) {
    const int count = static_cast<int>(g);
    const long long sa = s.n * s.k, sb = s.m * s.k, sc = s.m * s.n;
    for (auto [l, stride] : {std::pair{la, sa}, std::pair{lb, sb}, std::pair{lc, sc}}) {
      check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                             sizeof count),
            "batch");
      check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                             &stride, sizeof stride),
            "stride");
    }
  }
  cublasLtMatmulPreference_t pref;
  check(cublasLtMatmulPreferenceCreate(&pref), "preference");
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &workspace_bytes, sizeof workspace_bytes),
        "workspace");
  cublasLtMatmulHeuristicResult_t h{};
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &h, &found), "heuristic");
  if (found == 0) {
    std::fprintf(stderr, "stepsim-calibrate: no cuBLASLt algorithm for %s %lldx%lldx%lld\n",
                 s.precision.c_str(), s.m, s.n, s.k);
    return 0.0;
  }
  const float alpha = 1.0f, beta = 0.0f;
  const double t = sustained(
      [&] {
        check(cublasLtMatmul(lt, op, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &h.algo, workspace,
                             workspace_bytes, 0),
              "matmul");
      },
      seconds);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  if (scale) cudaFree(scale);
  return t;
}

// The cells of one CSV line (double-quoted cells may hold commas; "" is a quote).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += '"', ++i;
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// GEMM rows of `stepsim kernels --csv`: class gemm, shape "[GxMxNxK", precision, pass.
std::vector<Shape> read_shapes(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "stepsim-calibrate: cannot read %s\n", file.c_str());
    std::exit(2);
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_cells(line);
  auto column = [&](const char* name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int cls = column("class"), shape_col = column("shape"), prec = column("precision"),
            pass_col = column("pass");
  if (cls < 0 || shape_col < 0 || prec < 0) {
    std::fprintf(stderr, "stepsim-calibrate: %s is not `stepsim kernels --csv` output\n",
                 file.c_str());
    std::exit(2);
  }
  std::vector<Shape> out;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = csv_cells(line);
    if (static_cast<int>(cells.size()) != static_cast<int>(header.size()) || cells[cls] != "gemm")
      continue;
    const std::string& precision = cells[prec];
    if (precision != "bf16" && precision != "fp8") continue;
    std::vector<long long> d;
    std::stringstream ss(cells[shape_col]);
    for (std::string x; std::getline(ss, x, 'x');) d.push_back(std::atoll(x.c_str()));
    Shape s{precision, 0, 0, 0, 1};
    if (d.size() == 4) s.groups = static_cast<int>(d[0]), d.erase(d.begin());
    if (d.size() != 3) continue;
    s.m = d[0], s.n = d[1], s.k = d[2];
    if (pass_col >= 0) s.pass = cells[pass_col];
    if (s.pass != "fprop" && s.pass != "dgrad" && s.pass != "wgrad") s.pass = "any";
    bool seen = false;
    for (const auto& o : out)
      seen |= o.precision == s.precision && o.m == s.m && o.n == s.n && o.k == s.k &&
              o.groups == s.groups && o.pass == s.pass;
    if (!seen) out.push_back(s);
  }
  return out;
}

std::vector<Shape> default_shapes(bool fp8) {
  std::vector<Shape> out;
  // DeepSeek-V3 (hidden 7168, MLA, experts 2048 wide, 4 experts per GPU at EP 64), Llama-3.1
  // 405B and GPT-3 175B at TP 8, micro-batches of 4096 and 2048 tokens.
  const long long shapes[][4] = {
      {4096, 1536, 7168, 1},  {4096, 24576, 1536, 1}, {4096, 576, 7168, 1},
      {4096, 32768, 512, 1},  {4096, 7168, 16384, 1}, {4096, 36864, 7168, 1},
      {8192, 4096, 7168, 4},  {8192, 7168, 2048, 4},  {7168, 2048, 8192, 4},
      {8192, 4608, 16384, 1}, {8192, 16384, 2048, 1}, {8192, 13312, 16384, 1},
      {2048, 4608, 12288, 1}, {2048, 12288, 6144, 1}, {1024, 1024, 1024, 1},
      {4096, 4096, 4096, 1},  {8192, 8192, 8192, 1}};
  for (const char* p : {"bf16", "fp8"}) {
    if (std::string(p) == "fp8" && !fp8) continue;
    for (const auto& s : shapes) out.push_back({p, s[0], s[1], s[2], static_cast<int>(s[3])});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes_file;
  double seconds = 2.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--shapes" && i + 1 < argc) {
      shapes_file = argv[++i];
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: stepsim-calibrate [--shapes KERNELS.csv] [--seconds S]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "driver");
  const bool fp8 = prop.major >= 9;
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf("# gpu: %s\n# driver: CUDA %d.%d\n# date: %s\n# clock: sustained\n", prop.name,
              driver / 1000, driver % 1000 / 10, date);
  std::printf("# tool: stepsim-calibrate, cuBLASLt, %.1f s per shape after %.1f s warm-up\n",
              seconds, seconds);
  std::printf(
      "kind,precision,m,n,k,groups,pass,causal,head_dim,seq,bytes,time_us,tflops,gbps,library,"
      "pattern\n");
  cublasLtHandle_t lt;
  check(cublasLtCreate(&lt), "cublasLt");
  const size_t workspace_bytes = 64u << 20;
  void* workspace = nullptr;
  check(cudaMalloc(&workspace, workspace_bytes), "workspace");
  std::vector<Shape> shapes = shapes_file.empty() ? default_shapes(fp8) : read_shapes(shapes_file);
  for (const Shape& s : shapes) {
    if (s.precision == "fp8" && !fp8) continue;
    const double t = time_gemm(lt, s, seconds, workspace, workspace_bytes);
    if (t <= 0.0) continue;
    std::printf("gemm,%s,%lld,%lld,%lld,%d,%s,,,,,%.3f,,,cublas,\n", s.precision.c_str(), s.m, s.n,
                s.k, s.groups, s.pass == "any" ? "" : s.pass.c_str(), t * 1e6);
    std::fflush(stdout);
  }
  stepsim_calibrate::time_memory_patterns(
      [](const std::function<void()>& f, double span) { return sustained(f, span); }, seconds,
      static_cast<size_t>(prop.l2CacheSize), prop.multiProcessorCount);
  cudaFree(workspace);
  cublasLtDestroy(lt);
  return 0;
}
