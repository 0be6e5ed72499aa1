// Plain-text tables for the terminal: columns sized to their widest cell, the first column
// left-aligned and the others right-aligned (numbers), and number formatting helpers.
#pragma once

#include <string>
#include <vector>

namespace stepsim::format {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // Left-aligns every column from `first_left` on (e.g. a trailing description).
  void left_align_from(std::size_t first_left) { first_left_ = first_left; }
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::size_t first_left_ = static_cast<std::size_t>(-1);
};

std::string fixed(double v, int decimals);  // "%.*f"; a negative value that rounds to 0 is "0.0"
std::string general(double v);              // the shortest of %g: 4096, 1e+06, 0.5
std::string si(double v, const std::string& unit, int decimals = 2);  // 7.81 PFLOP, 1.34 TB
std::string si3(double v, const std::string& unit);  // three significant figures: 1.46 P, 758 T
std::string seconds(double s);                       // 6.88 s, 12.5 ms
std::string binary_bytes(double b);                  // 64 MiB, 1 GiB, 1.5 KiB

// GPU memory in GB (10^9 bytes), as device datasheets state it; a host's memory (what a
// simulation needs) in GiB, as --max-memory and the kernel count it.
inline constexpr double kGB = 1e9;
inline std::string gb(double bytes) {
  return fixed(bytes / kGB, 1) + " GB";
}
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline std::string gib(double bytes) {
  return fixed(bytes / kGiB, 1) + " GiB";
}

}  // namespace stepsim::format
