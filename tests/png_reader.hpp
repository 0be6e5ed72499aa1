// Reads the PNG files the report tests render (headless Chromium screenshots) as RGB pixels,
// through libpng's simplified API (Debian's libpng-dev). Throws std::runtime_error with libpng's
// message on anything it cannot read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepsim::test {

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // row by row, 3 bytes a pixel
  const std::uint8_t* at(int x, int y) const {
    return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
  }
};

Image read_png(const std::string& path);

// Writes `image` as an 8-bit RGB PNG (for the reader's own test).
void write_png(const std::string& path, const Image& image);

}  // namespace stepsim::test
