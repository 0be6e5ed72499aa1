// The test support's PNG reader (tests/png_reader.hpp), which the report's rendering test relies
// on: its inflate on blocks made by zlib, and its errors.
#include "tests/png_reader.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <stdexcept>

using stepsim::test::inflate;

namespace {

const std::string kText = "stepsim stepsim stepsim: a report people would rather look at, stepsim!";

std::string inflated(const std::vector<std::uint8_t>& deflate) {
  const auto out = inflate(deflate.data(), deflate.size());
  return std::string(out.begin(), out.end());
}

}  // namespace

TEST_CASE("inflate: a stored block and a fixed-Huffman block with back references (zlib's)") {
  // zlib.compress(kText, 0) and zlib.compress(kText, 9), without the zlib header and checksum.
  std::vector<std::uint8_t> stored = {1, 71, 0, 184, 255};
  stored.insert(stored.end(), kText.begin(), kText.end());
  CHECK(inflated(stored) == kText);
  const std::vector<std::uint8_t> fixed = {
      43,  46,  73, 45, 40,  206, 204, 85,  40,  70,  165, 173, 20,  18,  21,  138, 82, 11,
      242, 139, 74, 20, 10,  82,  243, 11,  114, 82,  21,  202, 243, 75,  115, 82,  20, 138,
      18,  75,  50, 82, 139, 20,  114, 242, 243, 179, 21,  18,  75,  116, 96,  202, 21, 1};
  CHECK(inflated(fixed) == kText);
  // Cut short, it fails instead of reading beyond its input.
  const std::vector<std::uint8_t> cut(fixed.begin(), fixed.begin() + 20);
  CHECK_THROWS_AS(inflated(cut), std::runtime_error);
}

TEST_CASE("read_png refuses what is not a PNG") {
  const std::string path = "png_reader_test_not_a_png.png";
  std::ofstream(path) << "GIF89a";
  CHECK_THROWS_AS(stepsim::test::read_png(path), std::runtime_error);
  CHECK_THROWS_AS(stepsim::test::read_png("no/such/file.png"), std::runtime_error);
  std::remove(path.c_str());
}
