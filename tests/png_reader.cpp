#include "tests/png_reader.hpp"

#include <png.h>

#include <stdexcept>

namespace stepsim::test {

namespace {

[[noreturn]] void fail(png_image& image, const std::string& path) {
  const std::string why = image.message;
  png_image_free(&image);
  throw std::runtime_error("png: " + path + ": " + why);
}

}  // namespace

Image read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) fail(image, path);
  image.format = PNG_FORMAT_RGB;
  Image out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) fail(image, path);
  return out;
}

void write_png(const std::string& path, const Image& in) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(in.width);
  image.height = static_cast<png_uint_32>(in.height);
  image.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&image, path.c_str(), 0, in.rgb.data(), 0, nullptr))
    fail(image, path);
}

}  // namespace stepsim::test
