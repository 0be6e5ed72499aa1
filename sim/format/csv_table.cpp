#include "sim/format/csv_table.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace stepsim::format {

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

CsvTable::CsvTable(std::vector<std::string> header) : columns_(header.size()) {
  open_ = true;
  for (const std::string& h : header) field(h);
  close_row();
}

void CsvTable::field(std::string_view f) {
  if (!open_) throw std::logic_error("csv: a field before row()");
  if (in_row_ == columns_) throw std::logic_error("csv: more fields than columns");
  if (in_row_ > 0) out_ += ',';
  out_ += csv_field(f);
  ++in_row_;
}

void CsvTable::close_row() {
  if (!open_) return;
  if (in_row_ != columns_)
    throw std::logic_error("csv: a row of " + std::to_string(in_row_) + " fields, not " +
                           std::to_string(columns_));
  out_ += '\n';
  in_row_ = 0;
  open_ = false;
}

CsvTable& CsvTable::row() {
  close_row();
  open_ = true;
  return *this;
}

CsvTable& CsvTable::text(std::string_view s) {
  field(s);
  return *this;
}

CsvTable& CsvTable::number(double v) {
  if (!std::isfinite(v)) return empty();
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  field(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  return *this;
}

CsvTable& CsvTable::integer(long long v) {
  field(std::to_string(v));
  return *this;
}

CsvTable& CsvTable::boolean(bool v) {
  field(v ? "true" : "false");
  return *this;
}

CsvTable& CsvTable::empty(int n) {
  for (int i = 0; i < n; ++i) field("");
  return *this;
}

std::string CsvTable::str() {
  close_row();
  return out_;
}

}  // namespace stepsim::format
