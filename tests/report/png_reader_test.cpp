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

TEST_CASE("inflate: a dynamic-Huffman block (zlib's, level 9)") {
  const std::string line =
      "The roofline bound of one training step, per GPU, without simulation: compute, HBM, "
      "NVLink and InfiniBand, each resource timed at its achievable rate; ";
  const std::string text = (line + line + line).substr(0, 300);
  const std::vector<std::uint8_t> dynamic = {
      205, 142, 49,  14,  194, 64,  12,  4,   191, 178, 15,  184, 23,  64,  151, 6,   144, 0,   81,
      4,   122, 39,  113, 136, 197, 197, 142, 238, 124, 225, 251, 248, 25,  116, 59,  90,  105, 52,
      253, 194, 40,  102, 115, 22,  101, 12,  214, 116, 130, 205, 176, 0,   47,  36,  42,  250, 70,
      117, 222, 18,  54,  46,  56,  61,  158, 9,   95,  241, 197, 154, 163, 202, 218, 50,  185, 152,
      30,  48,  218, 186, 53,  231, 132, 115, 119, 75,  184, 191, 174, 162, 31,  80,  184, 46,  58,
      135, 164, 139, 153, 192, 52,  46,  40,  92,  173, 149, 49,  244, 178, 242, 4,   114, 136, 87,
      196, 35,  188, 211, 144, 35,  134, 156, 143, 232, 255, 49,  235, 7};
  REQUIRE(((dynamic[0] >> 1) & 3) == 2);  // block type 2: dynamic Huffman codes
  CHECK(inflated(dynamic) == text);
}

TEST_CASE("read_png refuses what is not a PNG") {
  const std::string path = "png_reader_test_not_a_png.png";
  std::ofstream(path) << "GIF89a";
  CHECK_THROWS_AS(stepsim::test::read_png(path), std::runtime_error);
  CHECK_THROWS_AS(stepsim::test::read_png("no/such/file.png"), std::runtime_error);
  std::remove(path.c_str());
}
