// Physical quantities written as strings in YAML: "80GB", "80GiB", "50GB/s", "400Gb/s", "3.3us",
// "989TFLOP/s". A number, an optional SI (k M G T P E) or binary (Ki Mi Gi Ti Pi) prefix, and the
// unit of the expected dimension:
//   bytes      B (byte) or b (bit)                     "80GB" = 80e9 B, "80GiB" = 80·2^30 B
//   bandwidth  B/s or b/s (also Bps, bps)             "50GB/s" = 50e9 B/s, "400Gb/s" = 50e9 B/s
//   time       s, ms, us (or µs), ns, ps               "3.3us" = 3.3e-6 s
//   flop rate  FLOP/s or FLOPS                         "989TFLOP/s" = 989e12 flop/s
// Bare numbers are rejected where a unit is expected: a missing unit is the classic silent
// thousand-fold error.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stepsim::spec {

enum class Dimension { bytes, bandwidth, time, flop_rate };

std::string_view to_string(Dimension d);
// An example of a valid value, for hints.
std::string_view example(Dimension d);

// The value in base units (bytes, bytes/s, seconds, flop/s), or an error text explaining what is
// wrong with `text`.
struct Parsed {
  std::optional<double> value;
  std::string error;
};
Parsed parse_quantity(std::string_view text, Dimension dim);

// The physically sensible range of a quantity read from a file, in base units. Values outside
// it are refused at load with their file:line:
//   bytes      1 B .. 1 PiB            (buffers, HBM capacities)
//   bandwidth  100 MB/s .. 1 PB/s      (1 Gb Ethernet is 125 MB/s; HBM3e is under 10 TB/s)
//   time       1 ps .. 1 s             (latencies and launch overheads are ns to us)
//   flop rate  1 TFLOP/s .. 1 EFLOP/s  (an A100's FP64 is 9.7 TFLOP/s; a B200's FP4 is 9 PFLOP/s)
// Together with the integer ranges of the loaders, they keep every shipped scenario's step far
// inside the simulated clock's 106 days (a property test checks the corners).
struct Range {
  double lo = 0.0, hi = 0.0;
};
Range accepted_range(Dimension dim);

// `value` (base units) with a decimal or binary prefix, e.g. "4 GiB", "50 GB/s", "3.3 us".
std::string format_quantity(double value, Dimension dim);

}  // namespace stepsim::spec
