#include "sim/profile/trace_measurements.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "sim/engine/user_error.hpp"
#include "tests/test_support.hpp"

using namespace stepsim;

TEST_CASE("The hand-written trace: its shaped GEMM and its copy, one CSV row each") {
  const profile::TraceMeasurements m =
      profile::trace_measurements(test::source_path("tests/profile/traces/hand.pt.trace.json"));
  CHECK(m.gemms == 1);
  CHECK(m.copies == 1);
  CHECK(m.unshaped == 1);  // the second GEMM kernel's op was not recorded
  CHECK(m.csv.find("# gpu: NVIDIA H100 80GB HBM3\n") != std::string::npos);
  CHECK(m.csv.find("# date: 2023-11-14\n") != std::string::npos);
  CHECK(m.csv.find("# clock: sustained\n") != std::string::npos);
  CHECK(m.csv.find("\ngemm,bf16,1024,1024,4096,1,cublas,,50\n") != std::string::npos);
  CHECK(m.csv.find("\nmemory,,,,,,,16777216,20\n") != std::string::npos);
  REQUIRE(m.rows.size() == 2);
  CHECK(m.rows[0].csv_line == 6);
}

TEST_CASE("GEMM shapes of addmm, bmm and linear; the median of a shape's times") {
  const auto path = std::filesystem::temp_directory_path() / "stepsim_shapes.json";
  {
    std::ofstream out(path);
    out << R"({"traceEvents": [)";
    auto op = [&](int ext, const char* name, const char* dims, const char* type) {
      out << R"({"ph": "X", "cat": "cpu_op", "name": ")" << name
          << R"(", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"External id": )" << ext
          << R"(, "Input Dims": )" << dims << R"(, "Input type": [")" << type << R"("]}},)";
    };
    auto kernel = [&](int ext, double dur) {
      out << R"({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16", "pid": 0, )"
          << R"("tid": 7, "ts": 0, "dur": )" << dur << R"(, "args": {"stream": 7, "External id": )"
          << ext << "}},";
    };
    op(1, "aten::addmm", "[[4096], [512, 1024], [1024, 4096]]", "c10::BFloat16");
    kernel(1, 10);
    op(2, "aten::bmm", "[[8, 256, 128], [8, 128, 256]]", "c10::Half");
    kernel(2, 4);
    op(3, "aten::linear", "[[2, 512, 1024], [4096, 1024], [4096]]", "c10::BFloat16");
    kernel(3, 30);
    op(4, "aten::linear", "[[2, 512, 1024], [4096, 1024], [4096]]", "c10::BFloat16");
    kernel(4, 20);
    op(5, "aten::linear", "[[2, 512, 1024], [4096, 1024], [4096]]", "c10::BFloat16");
    kernel(5, 25);
    kernel(5, 1);  // its split-K reduction: the op's time is both kernels'
    out << R"({"ph": "M", "name": "end", "pid": 0, "tid": 0}]})";
  }
  const profile::TraceMeasurements m = profile::trace_measurements(path.string());
  CHECK(m.gemms == 3);
  CHECK(m.csv.find("gemm,bf16,512,4096,1024,1,cublas,,10\n") != std::string::npos);  // addmm
  CHECK(m.csv.find("gemm,fp16,256,256,128,8,cublas,,4\n") != std::string::npos);     // bmm
  // linear: 2·512 rows; times 30, 20 and 26: the median 26.
  CHECK(m.csv.find("gemm,bf16,1024,4096,1024,1,cublas,,26\n") != std::string::npos);
  std::filesystem::remove(path);
}
