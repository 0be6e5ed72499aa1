// A calibration round trip: a CSV of measurements imported into a device file, a scenario run on
// it, the new rows used by `stepsim kernels`; and the import's error paths.
#include <cmath>
#include <cstring>

#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "sim/config/load.hpp"
#include "sim/hw/kernel_model.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() : path(fs::temp_directory_path() / ("stepsim-cal-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
  fs::path path;
};

const char* kMeta =
    "# gpu: NVIDIA H800 80GB HBM3\n# driver: 550.54.15\n# date: 2026-12-01\n# clock: sustained\n";
const char* kHeader =
    "kind,precision,m,n,k,groups,pass,causal,head_dim,seq,bytes,time_us,tflops,gbps\n";

}  // namespace

TEST_CASE("Calibration round trip: imported rows time the scenario's kernels") {
  const TempDir dir;
  // 2·4096·7168·16384 FLOP in 874.6 us = 1100 TFLOP/s; a grouped GEMM at 1000; a copy at 2.8 TB/s;
  // a weight-gradient GEMM at 900, a table of its own pass; a reduction at 2.5 TB/s, a table of
  // its own pattern. The GEMMs ran DeepGEMM: they replace its tables (not CUTLASS's).
  const std::string csv = dir.file(
      "sweep.csv", std::string(kMeta) + std::string(kHeader).substr(0, std::strlen(kHeader) - 1) +
                       ",library,pattern\n"
                       "gemm,fp8,4096,7168,16384,,,,,,,874.61152,,,deepgemm,\n"
                       "gemm,fp8,8192,4096,7168,4,,,,,,,1000,,deepgemm,\n"
                       "memory,,,,,,,,,,1073741824,,,2800,,\n"
                       "gemm,fp8,7168,4096,4096,,wgrad,,,,,,900,,deepgemm,\n"
                       "memory,,,,,,,,,,268435456,,,2500,,reduction\n");
  const std::string out = (dir.path / "h800-measured.yaml").string();
  const auto r =
      run_stepsim("calibrate import '" + csv + "' --device topologies/h800.yaml -o '" + out + "'");
  REQUIRE(r.status == 0);
  // Replaced: DeepGEMM's two tables, the two copy tables (FlashMLA's row, Liger's curve) and the
  // reduction table (Liger's RMSNorm).
  CHECK(r.out.find("5 measurements into 4 tables, replacing 5") != std::string::npos);
  // DeepGEMM's tables keep their persistent grid: the CSV does not say how kernels launch.
  std::ifstream written(out);
  const std::string device_text((std::istreambuf_iterator<char>(written)), {});
  CHECK(device_text.find("grid: persistent") != std::string::npos);
  const auto k = run_stepsim(
      "kernels scenarios/deepseek-v3-dualpipe.yaml --stage 3 --csv --set "
      "'cluster.device=" +
      out + "'");
  REQUIRE(k.status == 0);
  CHECK(k.out.find("row sweep-gemm-fp8-deepgemm 4096x7168x16384 1100 TFLOP/s") !=
        std::string::npos);
  CHECK(k.out.find("row sweep-gemm-fp8-deepgemm 4x8192x4096x7168 1000 TFLOP/s") !=
        std::string::npos);
  CHECK(k.out.find("sweep-memory") != std::string::npos);
  CHECK(k.out.find("nearest sweep-memory-reduction 268.435 MB at 2500 GB/s") != std::string::npos);
  CHECK(k.out.find("sweep-gemm-fp8-wgrad-deepgemm 7168x4096x4096 900 TFLOP/s") !=
        std::string::npos);
  // The measurements replace the shipped DeepGEMM tables; CUTLASS's stays, for a preset to choose.
  CHECK(k.out.find(",deepgemm\n") == std::string::npos);  // no kernel's source
  const auto cutlass = run_stepsim(
      "kernels scenarios/deepseek-v3-dualpipe.yaml --stage 3 --csv --set 'cluster.device=" + out +
      "' --set software.gemm_library=cutlass");
  CHECK(cutlass.out.find("cutlass-fp8") != std::string::npos);
  CHECK(k.out.find("fa3") != std::string::npos);  // attention was not measured: kept
  // The shipped device is untouched, and a scenario runs on the new one.
  const auto s = run_stepsim(
      "run scenarios/deepseek-v3-dualpipe.yaml --json --set "
      "'cluster.device=" +
      out + "'");
  CHECK(s.status == 0);
  const auto shipped = run_stepsim("kernels scenarios/deepseek-v3-dualpipe.yaml --stage 3 --csv");
  CHECK(shipped.out.find("deepgemm") != std::string::npos);
}

TEST_CASE("Calibration import refuses bad measurements at their CSV line, writing nothing") {
  const TempDir dir;
  const std::string out = (dir.path / "out.yaml").string();
  auto import = [&](const std::string& text) {
    return run_stepsim("calibrate import '" + dir.file("bad.csv", text) +
                       "' --device topologies/h800.yaml -o '" + out + "'");
  };
  auto r = import(std::string(kMeta) + kHeader + "gemm,fp8,4096,7168,16384,,,,,,,,2500,\n");
  CHECK(r.status == 2);
  CHECK(r.err.find("bad.csv:6: error: the measured 2500 TFLOP/s exceed the device's fp8 peak") !=
        std::string::npos);
  r = import(std::string(kMeta) + "kind,precison,m\n");
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown column 'precison'") != std::string::npos);
  CHECK(r.err.find("did you mean 'precision'") != std::string::npos);
  r = import(std::string(kHeader) + "gemm,fp8,4096,7168,16384,,,,,,,,1000,\n");
  CHECK(r.status == 2);
  CHECK(r.err.find("does not say its gpu") != std::string::npos);
  r = import(std::string(kMeta) + kHeader + "gemm,fp8,4096,,16384,,,,,,,,1000,\n");
  CHECK(r.status == 2);
  CHECK(r.err.find("bad.csv:6: error: a gemm row needs 'n'") != std::string::npos);
  r = import(std::string(kMeta) + kHeader + "memory,,,,,,,,,,1e9,,,4000\n");
  CHECK(r.status == 2);
  CHECK(r.err.find("exceed the device's HBM bandwidth") != std::string::npos);
  // A value the device loader refuses (below 1 TFLOP/s) is reported at its CSV line too.
  r = import(std::string(kMeta) + kHeader + "gemm,bf16,64,64,64,,,,,,,,0.5,\n");
  CHECK(r.status == 2);
  CHECK(r.err.find("bad.csv:6: error:") != std::string::npos);
  CHECK(r.err.find("outside the physically sensible range") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  r = run_stepsim("calibrate import");
  CHECK(r.status == 2);
  CHECK(r.err.find("calibrate import needs one CSV file") != std::string::npos);
}

TEST_CASE("calibrate import --from-trace: a profile's GEMMs time their shapes back to the trace") {
  const TempDir dir;
  const std::string out = (dir.path / "h100-profiled.yaml").string();
  const auto r = run_stepsim(
      "calibrate import --from-trace tests/profile/traces/hand.pt.trace.json --device "
      "topologies/h100.yaml -o '" +
      out + "'");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("1 GEMM shapes and 1 copy sizes from tests/profile/traces/hand.pt.trace.json") !=
        std::string::npos);
  CHECK(r.out.find("GEMM bf16 1024x1024x4096 (1 kernels, median 50.00 us)") != std::string::npos);
  CHECK(r.out.find("1 GEMM kernels without their op's shapes not taken") != std::string::npos);
  // The traced GEMM (aten::mm of [1024, 4096] by [4096, 1024], 50 us) at its traced rate.
  const stepsim::spec::DeviceSpec d = stepsim::config::load_device(out);
  const stepsim::hw::TableKernelModel model(d);
  stepsim::hw::Kernel g;
  g.cls = &stepsim::hw::kGemmClass;
  g.precision = stepsim::spec::Precision::bf16;
  g.m = 1024, g.n = 1024, g.k = 4096;
  g.flops = 2.0 * g.m * g.n * g.k;
  const stepsim::hw::KernelEstimate e = model.explain(g, 1.0);
  CHECK(e.rate == doctest::Approx(g.flops / 50e-6).epsilon(0.01));
  CHECK(e.rule.find("row hand.pt.trace-gemm-bf16-cublas 1024x1024x4096") != std::string::npos);
  // The 8 MiB device-to-device copy: 16 MiB moved in 20 us.
  stepsim::hw::Kernel copy;
  copy.cls = &stepsim::hw::kMemoryClass;
  copy.hbm_bytes = 2.0 * 8388608;
  CHECK(model.explain(copy, 1.0).rate == doctest::Approx(2.0 * 8388608 / 20e-6).epsilon(0.01));
  // A trace without shapes has nothing to import; --from-trace beside a CSV is refused.
  const auto none = run_stepsim(
      "calibrate import --from-trace tests/profile/traces/malformed.json "
      "--device topologies/h100.yaml -o '" +
      out + "x'");
  CHECK(none.status == 2);
  const auto bare = dir.file("bare.json", R"({"traceEvents": []})");
  const auto empty = run_stepsim("calibrate import --from-trace '" + bare +
                                 "' --device topologies/h100.yaml -o '" + out + "x'");
  CHECK(empty.status == 2);
  CHECK(empty.err.find("record_shapes=True") != std::string::npos);
  CHECK(run_stepsim("calibrate import x.csv --from-trace '" + bare +
                    "' --device topologies/h100.yaml -o '" + out + "x'")
            .status == 2);
  CHECK_FALSE(fs::exists(out + "x"));
}

TEST_CASE("calibrate import checks the imported GEMM rows by leaving each out") {
  const TempDir dir;
  // BF16 GEMMs on a grid of 27 shapes, their rates rising smoothly with size; one shape measured
  // three times slower than its neighbours.
  std::string csv = std::string(kMeta) + "kind,precision,m,n,k,tflops\n";
  for (int m : {1024, 2048, 4096})
    for (int n : {1024, 2048, 4096})
      for (int k : {1024, 2048, 4096}) {
        double tflops = 300.0 + 20.0 * (std::log2(m) + std::log2(n) + std::log2(k) - 30.0);
        if (m == 2048 && n == 2048 && k == 2048) tflops /= 3.0;
        csv += "gemm,bf16," + std::to_string(m) + "," + std::to_string(n) + "," +
               std::to_string(k) + "," + std::to_string(tflops) + "\n";
      }
  const std::string out = (dir.path / "grid.yaml").string();
  const auto r = run_stepsim("calibrate import '" + dir.file("grid.csv", csv) +
                             "' --device topologies/h800.yaml -o '" + out + "'");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("leave-one-out over the ") != std::string::npos);
  CHECK(r.out.find("worst bf16 2048x2048x2048, predicted ") != std::string::npos);
}
