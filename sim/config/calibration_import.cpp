#include "sim/config/calibration_import.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "sim/config/load.hpp"
#include "sim/engine/input_files.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::config {

using engine::UserError;

namespace fs = std::filesystem;

namespace {

// A measured figure in a message: the shortest of %g.
std::string general(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

const std::vector<std::string> kColumns = {
    "kind",     "precision", "m",     "n",       "k",      "groups", "pass",    "causal",
    "head_dim", "seq",       "bytes", "time_us", "tflops", "gbps",   "library", "pattern"};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// Integers exactly (a shape matches its row), other values to full precision.
std::string num(double v) {
  std::ostringstream s;
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    s << static_cast<long long>(v);
  } else {
    s.precision(17);
    s << v;
  }
  return s.str();
}

struct Row {
  int line = 0;
  std::map<std::string, std::string> cells;
};

struct Csv {
  std::string file;
  std::map<std::string, std::string> meta;
  std::vector<Row> rows;

  [[noreturn]] void fail(int line, const std::string& msg, const std::string& hint = {}) const {
    throw UserError({file, line, 0}, msg, hint);
  }
};

Csv read_csv(std::istream& in, const std::string& file, const engine::RunControl* control);

Csv read_csv(const std::string& file, const engine::RunControl* control) {
  if (const std::string why = unreadable_because(file); !why.empty())
    throw UserError({"<command line>", 0, 0}, "cannot read '" + file + "': " + why,
                    "give the CSV the calibration program wrote (docs/calibration.md)");
  std::error_code size_ec;
  if (const auto size = fs::file_size(file, size_ec);
      !size_ec && size > static_cast<std::uintmax_t>(kMaxCalibrationCsvBytes))
    throw UserError({file, 0, 0},
                    "the CSV holds " + std::to_string(size) +
                        " bytes, more than the 16 MiB an "
                        "import reads",
                    "split the measurements over several imports (each starts from the device "
                    "the one before wrote)");
  std::ifstream in(file);
  engine::note_input(file);
  return read_csv(in, file, control);
}

Csv read_csv(std::istream& in, const std::string& file, const engine::RunControl* control) {
  Csv csv;
  csv.file = file;
  std::vector<std::string> header;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (control && n % 1024 == 0) control->check();
    if (n == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a byte-order mark
    engine::refuse_control_bytes(file, line,
                                 "the CSV is text: remove the byte (is this the file the "
                                 "calibration program wrote?)",
                                 n);
    const std::string t = trim(line);
    if (t.empty()) continue;
    if (t[0] == '#') {
      const auto colon = t.find(':');
      if (colon != std::string::npos)
        csv.meta[trim(t.substr(1, colon - 1))] = trim(t.substr(colon + 1));
      continue;
    }
    const auto cells = split(t);
    if (header.empty()) {
      header = cells;
      for (const auto& h : header)
        if (std::find(kColumns.begin(), kColumns.end(), h) == kColumns.end()) {
          std::string hint = "columns:";
          for (const auto& c : kColumns) hint += " " + c;
          if (auto m = did_you_mean(h, kColumns)) hint = "did you mean '" + *m + "'?";
          csv.fail(n, "unknown column '" + h + "'", hint);
        }
      if (std::find(header.begin(), header.end(), "kind") == header.end())
        csv.fail(n, "the header has no 'kind' column", "the first row names the columns");
      continue;
    }
    if (cells.size() != header.size())
      csv.fail(n,
               "the row has " + std::to_string(cells.size()) + " cells, the header " +
                   std::to_string(header.size()),
               "one cell per column; leave a cell empty for a column the row does not use");
    if (static_cast<int>(csv.rows.size()) == kMaxCalibrationRows)
      csv.fail(n, "more than " + std::to_string(kMaxCalibrationRows) + " measurements",
               "split the measurements over several imports (each starts from the device the "
               "one before wrote)");
    Row r;
    r.line = n;
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (!cells[i].empty()) r.cells[header[i]] = cells[i];
    csv.rows.push_back(std::move(r));
  }
  if (header.empty() || csv.rows.empty())
    csv.fail(0, "no measurements in the file", "a header row, then one row per measurement");
  for (const char* key : {"gpu", "date", "clock"})
    if (!csv.meta.count(key))
      csv.fail(1, std::string("the CSV does not say its ") + key,
               std::string("add a line '# ") + key + ": ...' before the header");
  if (csv.meta["clock"] != "sustained" && csv.meta["clock"] != "burst")
    csv.fail(1, "clock must be 'sustained' or 'burst', got '" + csv.meta["clock"] + "'",
             "sustained: measured long enough to reach the clocks a soaked GPU holds");
  return csv;
}

// A shape: a positive whole number.
double whole(const Csv& csv, const Row& r, const std::string& col);

double positive(const Csv& csv, const Row& r, const std::string& col) {
  const auto it = r.cells.find(col);
  if (it == r.cells.end())
    csv.fail(r.line, "a " + r.cells.at("kind") + " row needs '" + col + "'",
             "see docs/calibration.md for each kind's columns");
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !(v > 0.0) || v > 1e18)
    csv.fail(r.line, "'" + col + "' must be a positive number, got '" + it->second + "'");
  return v;
}

double whole(const Csv& csv, const Row& r, const std::string& col) {
  const double v = positive(csv, r, col);
  if (v != std::floor(v))
    csv.fail(r.line, "'" + col + "' must be a whole number, got '" + r.cells.at(col) + "'",
             "a shape counts elements");
  return v;
}

// The rate a row states, checked against its time where it gives both: `amount` (FLOP or bytes)
// over time_us, in `unit` (1e12: TFLOP/s, 1e9: GB/s).
double stated_rate(const Csv& csv, const Row& r, const std::string& rate_col, double amount,
                   double unit) {
  const bool has_rate = r.cells.count(rate_col) > 0, has_time = r.cells.count("time_us") > 0;
  if (!has_rate) return amount / (positive(csv, r, "time_us") * 1e-6) / unit;
  const double rate = positive(csv, r, rate_col);
  if (has_time) {
    const double from_time = amount / (positive(csv, r, "time_us") * 1e-6) / unit;
    if (std::abs(from_time - rate) > 0.01 * rate)
      csv.fail(r.line,
               "time_us " + r.cells.at("time_us") + " gives " + general(from_time) + " " +
                   (unit == 1e12 ? "TFLOP/s" : "GB/s") + ", the row states " + rate_col + " " +
                   r.cells.at(rate_col),
               "give the time or the rate, or make them agree (the time in microseconds)");
  }
  return rate;
}

// What a table holds: kind, precision ("" for memory), a GEMM table's pass ("any" unless it
// names one) or a memory table's access pattern ("copy" unless it names one), and a GEMM table's
// library (its name unless it names one: a preset chooses GEMMs by library, so a library's rows
// replace only that library's). Imported rows replace the tables of their key.
using TableKey = std::tuple<std::string, std::string, std::string, std::string>;

TableKey table_key(const YAML::Node& table) {
  auto get = [&](const char* key, const std::string& otherwise) {
    return table[key] ? table[key].as<std::string>() : otherwise;
  };
  const std::string kind = get("kind", "");
  return {kind, kind == "memory" ? "" : get("precision", ""),
          kind == "gemm"     ? get("pass", "any")
          : kind == "memory" ? get("pattern", "copy")
                             : "",
          kind == "gemm" ? get("library", get("name", "")) : ""};
}

}  // namespace

namespace {

// A measurement row: what it is of (its kind, precision, GEMM pass or memory pattern, and
// library) and its table row.
struct Measured {
  std::string kind, precision, gemm_pass, pattern, library;
  YAML::Node row;
  TableKey key() const {
    return {kind, precision, kind == "memory" ? pattern : gemm_pass, library};
  }
};

// Row r, checked against the device (its precisions and peaks).
Measured measured_row(const Csv& csv, const Row& r, const spec::DeviceSpec& device,
                      const std::string& device_file) {
  Measured m;
  const auto k = r.cells.find("kind");
  if (k == r.cells.end()) csv.fail(r.line, "the row has no kind", "gemm, attention or memory");
  const std::string kind = m.kind = k->second;
  if (kind != "gemm" && kind != "attention" && kind != "memory")
    csv.fail(r.line, "unknown kind '" + kind + "'", "gemm, attention or memory");
  std::string& precision = m.precision;
  if (kind != "memory") {
    const auto p = r.cells.find("precision");
    if (p == r.cells.end() || !spec::parse_precision(p->second))
      csv.fail(r.line, "a " + kind + " row needs a precision", "fp8, bf16, fp16 or fp32");
    precision = p->second;
    if (!device.supports(*spec::parse_precision(precision)))
      csv.fail(r.line, "the device has no " + precision + " rate",
               "add it under 'compute' in " + device_file + ", or drop the row");
  }
  auto check_rate = [&](double tflops) {
    const double peak = device.rate(*spec::parse_precision(precision)).peak_flops / 1e12;
    if (tflops > peak)
      csv.fail(r.line,
               "the measured " + general(tflops) + " TFLOP/s exceed the device's " + precision +
                   " peak of " + general(peak),
               "check the time's unit (microseconds) and the shape");
  };
  YAML::Node& row = m.row;
  row = YAML::Node(YAML::NodeType::Map);
  row.SetStyle(YAML::EmitterStyle::Flow);
  std::string& gemm_pass = m.gemm_pass;
  std::string& pattern = m.pattern;
  if (kind == "gemm") {
    const auto pass = r.cells.find("pass");
    gemm_pass = pass == r.cells.end() ? "any" : pass->second;
    const auto& words = spec::kGemmPasses.words();
    if (std::find(words.begin(), words.end(), gemm_pass) == words.end())
      csv.fail(r.line, "a gemm row's pass is any, fprop, dgrad or wgrad, got '" + gemm_pass + "'",
               "leave it empty for a forward GEMM that times every pass");
    const double m = whole(csv, r, "m"), n = whole(csv, r, "n"), kk = whole(csv, r, "k");
    const double g = r.cells.count("groups") ? whole(csv, r, "groups") : 1.0;
    row["m"] = num(m), row["n"] = num(n), row["k"] = num(kk);
    if (g != 1.0) row["groups"] = num(g);
    const double tflops = stated_rate(csv, r, "tflops", 2.0 * g * m * n * kk, 1e12);
    check_rate(tflops);
    row["rate"] = num(tflops) + "TFLOP/s";
  } else if (kind == "attention") {
    const auto pass = r.cells.find("pass");
    if (pass == r.cells.end() || (pass->second != "forward" && pass->second != "backward"))
      csv.fail(r.line, "an attention row needs pass: forward or backward");
    const auto causal = r.cells.find("causal");
    if (causal == r.cells.end() || (causal->second != "true" && causal->second != "false"))
      csv.fail(r.line, "an attention row needs causal: true or false");
    row["pass"] = pass->second;
    row["causal"] = causal->second;
    row["head_dim"] = num(whole(csv, r, "head_dim"));
    row["seq"] = num(whole(csv, r, "seq"));
    check_rate(positive(csv, r, "tflops"));
    row["rate"] = num(positive(csv, r, "tflops")) + "TFLOP/s";
  } else {
    const double bytes = whole(csv, r, "bytes");
    const double gbps = stated_rate(csv, r, "gbps", bytes, 1e9);
    if (gbps * 1e9 > device.hbm_bandwidth)
      csv.fail(r.line,
               "the measured " + general(gbps) + " GB/s exceed the device's HBM bandwidth of " +
                   general(device.hbm_bandwidth / 1e9),
               "check the bytes (read + written) and the time's unit (microseconds)");
    const auto pn = r.cells.find("pattern");
    pattern = pn == r.cells.end() || pn->second.empty() ? "copy" : pn->second;
    const auto& words = spec::kMemoryPatterns.words();
    if (std::find(words.begin(), words.end(), pattern) == words.end()) {
      std::string all;
      for (const auto& w : words) all += (all.empty() ? "" : ", ") + std::string(w);
      csv.fail(r.line, "unknown memory pattern '" + pattern + "'", all);
    }
    row["bytes"] = num(bytes) + "B";
    row["bandwidth"] = num(gbps) + "GB/s";
  }
  std::string& library = m.library;
  if (kind == "gemm") {
    const auto l = r.cells.find("library");
    library = l == r.cells.end() || l->second.empty() ? "measured" : l->second;
  }
  return m;
}

// The row's shape: one table holds one rate per shape.
std::string shape_of(const Measured& m) {
  std::string shape = m.kind + "|" + m.precision + "|" + std::get<2>(m.key()) + "|" + m.library;
  for (const char* col : {"m", "n", "k", "groups", "causal", "head_dim", "seq", "bytes"})
    if (const YAML::Node cell = std::as_const(m.row)[col])
      shape += std::string("|") + col + "=" + cell.as<std::string>();
  if (m.kind == "attention") shape += "|" + std::as_const(m.row)["pass"].as<std::string>();
  return shape;
}

// A new table for the rows of m's key, named and sourced after the CSV.
YAML::Node new_table(const std::string& csv_file, const Csv& csv, const Measured& m) {
  YAML::Node t;
  const std::string stem = fs::path(csv_file).stem().string();
  t["name"] = stem + "-" + m.kind + (m.precision.empty() ? "" : "-" + m.precision) +
              (m.gemm_pass.empty() || m.gemm_pass == "any" ? "" : "-" + m.gemm_pass) +
              (m.library.empty() || m.library == "measured" ? "" : "-" + m.library) +
              (m.pattern.empty() || m.pattern == "copy" ? "" : "-" + m.pattern);
  std::string source = fs::path(csv_file).filename().string() + ": " + csv.meta.at("gpu");
  if (csv.meta.count("driver")) source += ", driver " + csv.meta.at("driver");
  if (csv.meta.count("tool")) source += ", " + csv.meta.at("tool");
  source += ", " + csv.meta.at("date");
  t["source"] = source;
  t["clock"] = csv.meta.at("clock");
  if (!m.library.empty()) t["library"] = m.library;
  if (!m.pattern.empty() && m.pattern != "copy") t["pattern"] = m.pattern;
  t["kind"] = m.kind;
  if (!m.precision.empty()) t["precision"] = m.precision;
  if (!m.gemm_pass.empty() && m.gemm_pass != "any") t["pass"] = m.gemm_pass;
  t["rows"] = YAML::Node(YAML::NodeType::Sequence);
  return t;
}

// The device's tables: those the import replaces dropped (a replaced table's library keeps its
// launch grid, which the CSV does not say), the imported ones after the others; returns how many
// were dropped.
int replace_tables(YAML::Node& dev, const std::string& device_file, const std::string& output_file,
                   std::map<TableKey, YAML::Node>& tables, const std::vector<TableKey>& order) {
  int dropped = 0;
  const fs::path dev_dir = fs::absolute(device_file).parent_path();
  const fs::path out_dir = fs::absolute(output_file).parent_path();
  YAML::Node kept(YAML::NodeType::Sequence);
  // A replaced table's library keeps its launch grid (the CSV does not say it).
  auto replaced = [&](const YAML::Node& table) {
    const auto it = tables.find(table_key(table));
    if (it == tables.end()) return false;
    if (table["grid"]) it->second["grid"] = table["grid"].as<std::string>();
    ++dropped;
    return true;
  };
  if (dev["kernel_tables"])
    for (const YAML::Node& entry : dev["kernel_tables"]) {
      if (entry.IsMap()) {
        if (!replaced(entry)) kept.push_back(entry);
        continue;
      }
      const fs::path file = (dev_dir / entry.as<std::string>()).lexically_normal();
      if (replaced(YAML::LoadFile(file.string()))) continue;
      kept.push_back(fs::relative(file, out_dir).generic_string());
    }
  for (const auto& key : order) kept.push_back(tables[key]);
  dev["kernel_tables"] = kept;

  return dropped;
}

// The result must load as a device (rates within the peaks and the sensible ranges, every
// table well formed); a refusal inside an imported row is reported at its CSV line.
void check_loads(const std::string& yaml, const std::string& output_file,
                 const std::string& csv_file) {
  try {
    read_device(Document::parse(yaml, output_file, {}, "", nullptr).root());
  } catch (const UserError& err) {
    if (err.loc().file != output_file) throw;
    std::istringstream lines(yaml);
    std::string line;
    for (int n = 1; std::getline(lines, line) && n < err.loc().line; ++n) {
    }
    const auto at = line.find("csv_line: ");
    const int csv_line = at == std::string::npos ? 0 : std::atoi(line.c_str() + at + 10);
    throw UserError({csv_file, csv_line, 0}, err.message(), err.hint());
  }
}

}  // namespace

namespace {

CalibrationImport import_csv(const Csv& csv, const std::string& csv_file,
                             const std::string& device_file, const std::string& output_file,
                             const engine::RunControl* control) {
  const spec::DeviceSpec device = load_device(device_file);  // a valid device to start from
  // Rows grouped by table key, in the CSV's order.
  std::map<TableKey, YAML::Node> tables;
  std::vector<TableKey> order;
  CalibrationImport out;
  // Each measured shape's first line: one table holds one rate per shape.
  std::map<std::string, int> measured;
  for (const Row& r : csv.rows) {
    if (control && r.line % 1024 == 0) control->check();
    Measured m = measured_row(csv, r, device, device_file);
    if (const auto [first, fresh] = measured.emplace(shape_of(m), r.line); !fresh)
      csv.fail(r.line, "this shape was measured on line " + std::to_string(first->second) + " too",
               "keep one row per shape (e.g. the median of repeated runs)");
    const TableKey key = m.key();
    if (!tables.count(key)) {
      order.push_back(key);
      tables[key] = new_table(csv_file, csv, m);
    }
    YAML::Node rows = tables[key]["rows"];
    m.row["csv_line"] = r.line;
    rows.push_back(m.row);
    ++out.rows;
  }
  // The device file, its tables rewritten.
  YAML::Node dev = YAML::LoadFile(device_file);
  out.dropped = replace_tables(dev, device_file, output_file, tables, order);
  out.tables = static_cast<int>(order.size());
  YAML::Emitter e;
  e << YAML::Comment("Generated by stepsim calibrate import from " + csv_file + " and " +
                     device_file + ": " + csv.meta.at("gpu") + ", " + csv.meta.at("date") +
                     ". The comments of " + device_file +
                     " (the sources of its figures) are not carried over.")
    << YAML::Newline << dev;
  out.yaml = std::string(e.c_str()) + "\n";
  check_loads(out.yaml, output_file, csv_file);
  return out;
}

}  // namespace

CalibrationImport import_calibration(const std::string& csv_file, const std::string& device_file,
                                     const std::string& output_file,
                                     const engine::RunControl* control) {
  return import_csv(read_csv(csv_file, control), csv_file, device_file, output_file, control);
}

CalibrationImport import_calibration_text(const std::string& csv_text, const std::string& source,
                                          const std::string& device_file,
                                          const std::string& output_file,
                                          const engine::RunControl* control) {
  std::istringstream in(csv_text);
  return import_csv(read_csv(in, source, control), source, device_file, output_file, control);
}

}  // namespace stepsim::config
