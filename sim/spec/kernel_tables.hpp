// A device's calibration tables: measured kernel rates by class and shape, each row with the
// table it came from (its source, and whether it was measured at burst or at sustained clocks).
//
// - GEMM rows: rows per group M, output columns N, reduction depth K, groups G (1: a plain GEMM;
//   G > 1: a grouped GEMM, G experts of M rows each, contiguous layout), precision of the inputs,
//   the pass the kernel served (any, fprop, dgrad, wgrad) and the rate in FLOP/s (2·G·M·N·K over
//   the kernel's time).
// - Attention rows: forward or backward, causal or not, head dimension, sequence length,
//   precision, rate in FLOP/s in FlashAttention's convention (forward 4·s²·h·d per sequence, half
//   of it causal; backward 2.5× the forward).
// - Memory rows: bytes moved (read + written) by a memory-bound kernel of one access pattern
//   (a copy unless the table names another) and the bandwidth it reached.
// The sustained-clock factor scales a burst-clock row to what a GPU held at its power limit runs
// at: soaked, on random data (kernel_model.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/spec/names.hpp"
#include "sim/spec/precision.hpp"

namespace stepsim::spec {

struct TableSource {
  std::string name;         // short name the rows are listed by, e.g. "deepgemm"
  std::string description;  // the citation: repository, file, commit or paper, figure
  std::string file;         // the table file it was read from (empty: inline)
  bool sustained = false;   // measured at sustained clocks (else burst: scaled by the factor)
  // The software whose kernels the rows measured ("deepgemm", "cublas", "flash3"): what a software
  // preset chooses its GEMMs by (SoftwareSpec::gemm_library) and a kernel's implementation.
  std::string library;
  // Its GEMM kernels launch a persistent grid (`grid: persistent`): one CTA per SM they are
  // given, each looping over a fixed share of the output tiles, so that CTAs left waiting for an
  // SM run as a second wave (exec/step_executor.hpp). Else one CTA per tile (`grid: tiles`).
  bool persistent = false;

  friend bool operator==(const TableSource&, const TableSource&) = default;
};

// The pass a GEMM row's kernel ran: any (the forward GEMM, which times every pass without rows of
// its own), or one pass: fprop, dgrad (input gradient), wgrad (weight gradient: the reduction runs
// over the tokens, a kernel of its own in libraries such as DeepGEMM).
enum class GemmPass { any, fprop, dgrad, wgrad };
inline constexpr Names<GemmPass, 4> kGemmPasses{{{"any"}, {"fprop"}, {"dgrad"}, {"wgrad"}}};

struct GemmRow {
  Precision precision = Precision::bf16;
  GemmPass pass = GemmPass::any;
  double m = 0.0, n = 0.0, k = 0.0;
  int groups = 1;
  double rate = 0.0;  // FLOP/s
  int source = 0;     // index into KernelTables::sources
  int line = 0;       // line of the row in its file

  friend bool operator==(const GemmRow&, const GemmRow&) = default;
};

struct AttentionRow {
  Precision precision = Precision::bf16;
  bool backward = false;
  bool causal = false;
  double head_dim = 0.0;
  double seq = 0.0;
  double rate = 0.0;  // FLOP/s, FlashAttention's convention
  int source = 0;
  int line = 0;

  friend bool operator==(const AttentionRow&, const AttentionRow&) = default;
};

// How a memory-bound kernel walks memory, which sets the bandwidth it reaches: copy (streaming
// reads and writes: copies, elementwise ops), cast (a precision cast with per-tile scales),
// cast_transpose (a cast writing a transposed copy too), transpose, gather (rows by index), and
// reduction (rows reduced: norms, softmax).
enum class MemoryPattern { copy, cast, cast_transpose, transpose, gather, reduction };
inline constexpr Names<MemoryPattern, 6> kMemoryPatterns{
    {{"copy"}, {"cast"}, {"cast_transpose"}, {"transpose"}, {"gather"}, {"reduction"}}};

struct MemoryRow {
  double bytes = 0.0;      // read + written
  double bandwidth = 0.0;  // bytes/s
  int source = 0;
  int line = 0;
  MemoryPattern pattern = MemoryPattern::copy;

  friend bool operator==(const MemoryRow&, const MemoryRow&) = default;
};

struct KernelTables {
  std::vector<TableSource> sources;
  std::vector<GemmRow> gemm;
  std::vector<AttentionRow> attention;
  std::vector<MemoryRow> memory;
  // The library whose GEMM rows time a precision's GEMMs where it has rows (a software preset's
  // choice, SoftwareSpec::gemm_library); empty, or where it has none: the first library listed
  // with rows of that precision. Rows of one library only, so no shape has two rates.
  std::string gemm_library;
  // The same for the attention tables (the attention implementation's library, "flash2" or
  // "flash3"; empty: the first listed with rows of a precision).
  std::string attention_library;
  // Sustained over burst clock under the power limit, applied to burst rows' compute rates.
  double sustained_clock = 1.0;
  std::string sustained_clock_source;

  friend bool operator==(const KernelTables&, const KernelTables&) = default;
};

// The libraries of a device's GEMM or attention tables, in the order their rows come.
std::vector<std::string> gemm_libraries(const KernelTables& t);
std::vector<std::string> attention_libraries(const KernelTables& t);

// The library whose rows time GEMMs of precision `p` (KernelTables::gemm_library where it has
// rows of `p`, else the first listed); null: no GEMM rows of `p`.
const std::string* gemm_library_for(const KernelTables& t, Precision p);
const std::string* attention_library_for(const KernelTables& t, Precision p);

// Whether table `source` times any kernel: false for a GEMM or attention table of a library not
// chosen.
bool times_kernels(const KernelTables& t, int source);

}  // namespace stepsim::spec
