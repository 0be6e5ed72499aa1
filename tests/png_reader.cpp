#include "tests/png_reader.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace stepsim::test {

namespace {

[[noreturn]] void fail(const std::string& why) {
  throw std::runtime_error("png: " + why);
}

class Bits {
 public:
  Bits(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  int bits(int k) {
    int v = 0;
    for (int i = 0; i < k; ++i) {
      if (pos_ >= n_ * 8) fail("deflate data ends early");
      v |= ((p_[pos_ >> 3] >> (pos_ & 7)) & 1) << i;
      ++pos_;
    }
    return v;
  }
  void align() { pos_ = (pos_ + 7) & ~static_cast<std::size_t>(7); }
  std::uint8_t byte() {
    if (pos_ / 8 >= n_) fail("deflate data ends early");
    const std::uint8_t b = p_[pos_ / 8];
    pos_ += 8;
    return b;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_, pos_ = 0;
};

// A canonical Huffman code: codes per length and symbols in code order.
struct Huffman {
  std::array<int, 16> count{};
  std::vector<int> symbol;
  Huffman(const int* lengths, int n) : symbol(n) {
    for (int i = 0; i < n; ++i) ++count[lengths[i]];
    count[0] = 0;
    std::array<int, 16> offset{};
    for (int len = 1; len < 15; ++len) offset[len + 1] = offset[len] + count[len];
    for (int i = 0; i < n; ++i)
      if (lengths[i] != 0) symbol[offset[lengths[i]]++] = i;
  }
  int decode(Bits& in) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len < 16; ++len) {
      code |= in.bits(1);
      const int c = count[len];
      if (code - c < first) return symbol[index + (code - first)];
      index += c;
      first = (first + c) << 1;
      code <<= 1;
    }
    fail("bad Huffman code");
  }
};

constexpr int kLengthBase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr int kLengthExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr int kDistBase[] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                             33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                             1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr int kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                              6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

void codes(Bits& in, std::vector<std::uint8_t>& out, const Huffman& lit, const Huffman& dist) {
  while (true) {
    const int sym = lit.decode(in);
    if (sym < 256) {
      out.push_back(static_cast<std::uint8_t>(sym));
      continue;
    }
    if (sym == 256) return;
    const int l = sym - 257;
    if (l >= 29) fail("bad length code");
    const int len = kLengthBase[l] + in.bits(kLengthExtra[l]);
    const int d = dist.decode(in);
    if (d >= 30) fail("bad distance code");
    const std::size_t back = static_cast<std::size_t>(kDistBase[d] + in.bits(kDistExtra[d]));
    if (back > out.size()) fail("distance beyond the output");
    for (int i = 0; i < len; ++i) out.push_back(out[out.size() - back]);
  }
}

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}

}  // namespace

std::vector<std::uint8_t> inflate(const std::uint8_t* data, std::size_t size) {
  Bits in(data, size);
  std::vector<std::uint8_t> out;
  int last = 0;
  while (!last) {
    last = in.bits(1);
    const int type = in.bits(2);
    if (type == 0) {
      in.align();
      const int len = in.byte() | (in.byte() << 8);
      const int nlen = in.byte() | (in.byte() << 8);
      if ((len ^ 0xffff) != nlen) fail("bad stored block");
      for (int i = 0; i < len; ++i) out.push_back(in.byte());
    } else if (type == 1) {
      int lengths[288 + 30];
      for (int i = 0; i < 288; ++i) lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
      for (int i = 0; i < 30; ++i) lengths[288 + i] = 5;
      codes(in, out, Huffman(lengths, 288), Huffman(lengths + 288, 30));
    } else if (type == 2) {
      const int nlen = in.bits(5) + 257, ndist = in.bits(5) + 1, ncode = in.bits(4) + 4;
      static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                         11, 4,  12, 3, 13, 2, 14, 1, 15};
      int lengths[320] = {};
      for (int i = 0; i < ncode; ++i) lengths[kOrder[i]] = in.bits(3);
      const Huffman lencode(lengths, 19);
      int lens[320] = {};
      for (int i = 0; i < nlen + ndist;) {
        int sym = lencode.decode(in);
        if (sym < 16) {
          lens[i++] = sym;
          continue;
        }
        int value = 0, repeat;
        if (sym == 16) {
          if (i == 0) fail("repeat with no length");
          value = lens[i - 1];
          repeat = 3 + in.bits(2);
        } else if (sym == 17) {
          repeat = 3 + in.bits(3);
        } else {
          repeat = 11 + in.bits(7);
        }
        if (i + repeat > nlen + ndist) fail("too many lengths");
        while (repeat--) lens[i++] = value;
      }
      codes(in, out, Huffman(lens, nlen), Huffman(lens + nlen, ndist));
    } else {
      fail("bad block type");
    }
  }
  return out;
}

Image read_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path);
  const std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(f)),
                                    std::istreambuf_iterator<char>());
  static constexpr std::uint8_t kSignature[] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (b.size() < 8 || !std::equal(std::begin(kSignature), std::end(kSignature), b.begin()))
    fail(path + " is not a PNG");
  Image img;
  int channels = 0;
  std::vector<std::uint8_t> idat;
  for (std::size_t at = 8; at + 12 <= b.size();) {
    const std::uint32_t len = be32(&b[at]);
    const std::string type(b.begin() + at + 4, b.begin() + at + 8);
    if (at + 12 + len > b.size()) fail("chunk beyond the file");
    const std::uint8_t* d = &b[at + 8];
    if (type == "IHDR") {
      img.width = static_cast<int>(be32(d));
      img.height = static_cast<int>(be32(d + 4));
      if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12] != 0)
        fail("only 8-bit RGB or RGBA, not interlaced");
      channels = d[9] == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      idat.insert(idat.end(), d, d + len);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  if (channels == 0 || idat.size() < 2) fail("no image data");
  const std::vector<std::uint8_t> raw = inflate(idat.data() + 2, idat.size() - 2);  // zlib header
  const std::size_t stride = static_cast<std::size_t>(img.width) * channels;
  if (raw.size() < (stride + 1) * img.height) fail("image data too short");
  std::vector<std::uint8_t> prev(stride, 0), row(stride);
  img.rgb.resize(static_cast<std::size_t>(img.width) * img.height * 3);
  for (int y = 0; y < img.height; ++y) {
    const std::uint8_t* line = &raw[y * (stride + 1)];
    const int filter = line[0];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<std::size_t>(channels) ? row[i - channels] : 0;
      const int up = prev[i];
      const int c = i >= static_cast<std::size_t>(channels) ? prev[i - channels] : 0;
      int pred = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          pred = a;
          break;
        case 2:
          pred = up;
          break;
        case 3:
          pred = (a + up) / 2;
          break;
        case 4: {
          const int p = a + up - c, pa = std::abs(p - a), pb = std::abs(p - up),
                    pc = std::abs(p - c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
          break;
        }
        default:
          fail("bad filter");
      }
      row[i] = static_cast<std::uint8_t>(line[1 + i] + pred);
    }
    for (int x = 0; x < img.width; ++x)
      for (int k = 0; k < 3; ++k)
        img.rgb[(static_cast<std::size_t>(y) * img.width + x) * 3 + k] = row[x * channels + k];
    std::swap(prev, row);
  }
  return img;
}

}  // namespace stepsim::test
