// The test support's PNG reader (tests/png_reader.hpp), which the report's rendering test relies
// on: pixels read back as written, and its errors.
#include "tests/png_reader.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

using stepsim::test::Image;

TEST_CASE("read_png reads back the pixels written") {
  Image in;
  in.width = 3;
  in.height = 2;
  for (int i = 0; i < in.width * in.height * 3; ++i)
    in.rgb.push_back(static_cast<std::uint8_t>(i * 13));
  const std::string path = "png_reader_test_pixels.png";
  stepsim::test::write_png(path, in);
  const Image out = stepsim::test::read_png(path);
  CHECK(out.width == 3);
  CHECK(out.height == 2);
  CHECK(out.rgb == in.rgb);
  CHECK(out.at(2, 1)[2] == static_cast<std::uint8_t>(17 * 13));
  std::remove(path.c_str());
}

TEST_CASE("read_png refuses what is not a PNG") {
  const std::string path = "png_reader_test_not_a_png.png";
  std::ofstream(path) << "GIF89a";
  CHECK_THROWS_AS(stepsim::test::read_png(path), std::runtime_error);
  CHECK_THROWS_AS(stepsim::test::read_png("no/such/file.png"), std::runtime_error);
  std::remove(path.c_str());
}
