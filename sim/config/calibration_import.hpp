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
#pragma once

#include <string>

namespace stepsim::config {

struct CalibrationImport {
  std::string yaml;  // the new device file's text
  int rows = 0;      // measurements imported
  int tables = 0;    // inline tables written
  int dropped = 0;   // tables of the device file the measurements replace
};

CalibrationImport import_calibration(const std::string& csv_file, const std::string& device_file,
                                     const std::string& output_file);

}  // namespace stepsim::config
