// `stepsim calibrate import`: microbenchmark results (a CSV, docs/calibration.md) into a device
// file whose calibration tables are the measured ones.
//
// The CSV opens with `# key: value` lines naming the measurement: gpu, date and clock
// (sustained or burst) are required, driver and tool optional. Then a header row and one row per
// measurement, comma-separated, no quoting; a row's `kind` says which columns it needs:
//     gemm       precision, m, n, k, [groups], [pass], [library], and time_us or tflops
//     attention  precision, pass (forward|backward), causal (true|false), head_dim, seq, tflops
//     memory     bytes, [pattern], and time_us or gbps
// (time_us: the kernel's time; a GEMM's rate is 2·G·M·N·K over it, a copy's bandwidth its bytes
// over it; a GEMM's library the software that ran it, "measured" when the column is empty.) The
// rows become one inline table per kind, precision, pass (a memory row's access pattern, copy
// when empty) and library, named after the CSV and
// citing it (gpu, driver, date); each row is commented with the CSV line it came from. The device
// file is copied with its `kernel_tables` rewritten: tables of a key the CSV measures are dropped
// (the measurement replaces them: a GEMM table only that of its own library, since a software
// preset chooses GEMMs by library), the others kept (file names made relative to the output's
// folder). The result is loaded as a device before it is returned, so a bad
// measurement is refused at its CSV line and no file is written.
// Refused too, at their lines: a shape that is not a whole number (m = 4096.5); a shape measured
// twice (both lines named: one table holds one rate per shape); a row giving both a time and a
// rate that disagree by more than 1 %; a control byte (engine::refuse_control_bytes). A UTF-8
// byte-order mark before the first line is skipped. Every kept row is a distinct shape, so the
// import's memory is O(distinct shapes).
// Limits, stated up front and checked while reading line by line: the CSV at most 16 MiB and
// 10,000 measurements (tools/calibrate measures tens of shapes, a kernel listing's hundreds; at
// the limit the import takes about a second and 150 MB, the generated file 0.7 MB); a signal or
// the wall-clock budget (`control`) stops the import between lines.
#pragma once

#include <string>

#include "sim/engine/simulator.hpp"

namespace stepsim::config {

struct CalibrationImport {
  std::string yaml;  // the new device file's text
  int rows = 0;      // measurements imported
  int tables = 0;    // inline tables written
  int dropped = 0;   // tables of the device file the measurements replace
};

inline constexpr long long kMaxCalibrationCsvBytes = 16LL << 20;
inline constexpr int kMaxCalibrationRows = 10'000;

CalibrationImport import_calibration(const std::string& csv_file, const std::string& device_file,
                                     const std::string& output_file,
                                     const engine::RunControl* control = nullptr);
// The same from the CSV's text (measurements taken from a profile: profile/
// trace_measurements.hpp), `source` standing for its file: in the tables' names and sources, and
// in messages, where a line is the text's.
CalibrationImport import_calibration_text(const std::string& csv_text, const std::string& source,
                                          const std::string& device_file,
                                          const std::string& output_file,
                                          const engine::RunControl* control = nullptr);

}  // namespace stepsim::config
