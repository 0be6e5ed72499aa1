// Reads the PNG files the report tests render (headless Chromium screenshots): 8-bit RGB or RGBA,
// non-interlaced, as RGB pixels. Its own inflate (RFC 1951: stored, fixed and dynamic Huffman
// blocks), since the project links no zlib. Throws std::runtime_error on anything else.
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

// Raw DEFLATE data (no zlib header) inflated.
std::vector<std::uint8_t> inflate(const std::uint8_t* data, std::size_t size);

}  // namespace stepsim::test
