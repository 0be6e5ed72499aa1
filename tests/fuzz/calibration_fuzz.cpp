// libFuzzer target: `stepsim calibrate import` of a calibration CSV (see fuzz_entry.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stepsim::fuzz::import_calibration_csv(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
