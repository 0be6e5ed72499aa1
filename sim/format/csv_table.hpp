// CSV for every command's --csv (RFC 4180): a header row of column names, each naming its unit
// as a suffix where it has one (step_s, peak_memory_gb, flops, bytes), then one row per record
// with one field per column. A field is quoted only when it holds a comma, a quote or a line
// break; numbers are written in the shortest form that reads back to the same double; a value
// that does not apply (or a non-finite number) is an empty field. A row with more or fewer
// fields than the header is a programming error (std::logic_error).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepsim::format {

class CsvTable {
 public:
  explicit CsvTable(std::vector<std::string> header);
  // Starts a row (closing the one before).
  CsvTable& row();
  CsvTable& text(std::string_view s);
  CsvTable& number(double v);
  CsvTable& integer(long long v);
  CsvTable& boolean(bool v);
  CsvTable& empty(int n = 1);
  // The document, every row complete.
  std::string str();

 private:
  void field(std::string_view f);
  void close_row();
  std::size_t columns_;
  std::size_t in_row_ = 0;
  bool open_ = false;
  std::string out_;
};

// One CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view s);

}  // namespace stepsim::format
