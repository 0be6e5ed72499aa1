// libFuzzer target: the command line (see fuzz_entry.hpp, run_command_line).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stepsim::fuzz::command_line(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
