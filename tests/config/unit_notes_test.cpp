// Values in bits: listed with their line and what they became; bytes, comments and quoted text
// are not.
#include "sim/config/unit_notes.hpp"

#include <doctest/doctest.h>

using stepsim::config::bit_quantities;

TEST_CASE("a rate or a size in bits is named with its line and its value in bytes") {
  const std::string text =
      "name: x  # 400 Gb/s NICs, a comment\n"
      "nvlink: {bandwidth: 1280Gbps, peak: 200GB/s}\n"
      "fabric:\n"
      "  nic: 400Gb/s\n"
      "  source: \"DeepEP at 153 Gb/s\"\n"
      "sizes: [8Gb, 1GiB]\n";
  const auto notes = bit_quantities("c.yaml", text);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0] == "c.yaml:2: 1280Gbps is read as bits: 160.000 GB/s (1280GB/s would be bytes)");
  CHECK(notes[1] == "c.yaml:4: 400Gb/s is read as bits: 50.000 GB/s (400GB/s would be bytes)");
  CHECK(notes[2] == "c.yaml:6: 8Gb is read as bits: 1.0 GB (8GB would be bytes)");
  CHECK(bit_quantities("--set x", ": 400Gb/s", false).at(0).rfind("--set x: 400Gb/s", 0) == 0);
  CHECK(bit_quantities("c.yaml", "nvlink: {bandwidth: 160GB/s, latency: 3.3us}\n").empty());
}
