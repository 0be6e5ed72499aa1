#include "sim/format/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace stepsim::format {

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], cells[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = indent;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string c = i < cells.size() ? cells[i] : "";
      const std::size_t pad = width[i] - std::min(width[i], c.size());
      const bool left = i == 0 || i >= first_left_;
      if (i > 0) s += "  ";
      if (left)
        s += c + (i + 1 < width.size() ? std::string(pad, ' ') : "");
      else
        s += std::string(pad, ' ') + c;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  // A negative value that rounds to zero is zero: "-0.0" would read as a loss.
  if (buf[0] == '-' && std::strspn(buf + 1, "0.") == std::strlen(buf + 1)) return buf + 1;
  return buf;
}

std::string general(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string si(double v, const std::string& unit, int decimals) {
  static const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  double a = std::fabs(v);
  while (a >= 1000.0 && i < 6) {
    a /= 1000.0;
    v /= 1000.0;
    ++i;
  }
  return fixed(v, decimals) + " " + kPrefix[i] + unit;
}

std::string si3(double v, const std::string& unit) {
  if (!std::isfinite(v)) return si(v, unit, 0);
  double a = std::fabs(v);
  for (int i = 0; a >= 1000.0 && i < 6; ++i) a /= 1000.0;
  return si(v, unit, a < 10.0 ? 2 : a < 100.0 ? 1 : 0);
}

std::string binary_bytes(double b) {
  static const char* kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (b >= 1024.0 && i < 5) {
    b /= 1024.0;
    ++i;
  }
  return (b == std::floor(b) ? fixed(b, 0) : fixed(b, 2)) + " " + kUnit[i];
}

std::string seconds(double s) {
  if (s == 0.0) return "0 s";
  if (std::fabs(s) >= 1.0) return fixed(s, 2) + " s";
  if (std::fabs(s) >= 1e-3) return fixed(s * 1e3, 2) + " ms";
  return fixed(s * 1e6, 2) + " us";
}

}  // namespace stepsim::format
