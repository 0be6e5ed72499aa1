#include "sim/report/sweep_report.hpp"

#include <charconv>
#include <cmath>

#include "sim/engine/user_error.hpp"
#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/report/plan_report.hpp"

namespace stepsim::report {

std::string sweep_text(const std::string& file, const search::Sweep& sweep,
                       const std::vector<search::Simulated>& results) {
  const std::vector<search::Vary>& vs = sweep.varies;
  const std::size_t n = results.size();
  std::vector<std::string> header;
  for (const search::Vary& v : vs) header.push_back(v.key);
  for (const char* h : {"step s", "tokens/s/GPU", "MFU", "compute", "exposed", "bubble", "idle",
                        "bound s", "by", "memory GB"})
    header.emplace_back(h);
  format::TextTable t(header);
  t.left_align_from(0);
  std::string errors;
  int n_errors = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const search::Simulated& s = results[i];
    const auto at = sweep.at(i);
    std::vector<std::string> row;
    for (std::size_t k = 0; k < vs.size(); ++k) row.push_back(vs[k].values[at[k]]);
    if (!s.error.empty()) {
      // Errors are listed under the table, so that they do not widen its columns.
      const std::string mark = "error " + std::to_string(++n_errors);
      row.push_back(mark);
      errors += "  " + mark + ": " + s.error + "\n";
      t.row(row);
      continue;
    }
    auto pct = [&](double x) { return format::fixed(100.0 * x / s.step_s, 1) + "%"; };
    for (const std::string& c :
         {format::fixed(s.step_s, 3), format::fixed(s.tokens_per_s_per_gpu, 0),
          format::fixed(100.0 * s.mfu, 1) + "%", pct(s.mean.compute), pct(s.mean.exposed_comm),
          pct(s.mean.bubble), pct(s.mean.other_idle), format::fixed(s.bound_s, 2),
          resource(s.limited_by),
          format::fixed(s.peak_memory / format::kGB, 1) + (s.fits() ? "" : " (over)")})
      row.push_back(c);
    t.row(row);
  }
  return "sweep of " + engine::escape_control_bytes(file) + ": " + std::to_string(n) +
         (n == 1 ? " point\n" : " points\n") + t.render() + errors;
}

std::string sweep_json(const search::Sweep& sweep, const std::vector<search::Simulated>& results) {
  const std::vector<search::Vary>& vs = sweep.varies;
  const std::size_t n = results.size();
  format::JsonWriter j;
  j.begin_array();
  for (std::size_t i = 0; i < n; ++i) {
    const search::Simulated& s = results[i];
    const auto at = sweep.at(i);
    j.begin_object();
    j.key("point").begin_object();
    for (std::size_t k = 0; k < vs.size(); ++k) {
      // A value as typed: a whole number, a number, true or false, else its text (a list, a word).
      const std::string& v = vs[k].values[at[k]];
      j.key(vs[k].key);
      long long whole = 0;
      double number = 0.0;
      const char* end = v.data() + v.size();
      if (const auto w = std::from_chars(v.data(), end, whole); w.ec == std::errc() && w.ptr == end)
        j.value(whole);
      else if (const auto d = std::from_chars(v.data(), end, number);
               d.ec == std::errc() && d.ptr == end && std::isfinite(number))
        j.value(number);
      else if (v == "true" || v == "false")
        j.value(v == "true");
      else
        j.value(v);
    }
    j.end_object();
    j.key("error");
    if (s.error.empty()) {
      j.null();
      simulated_json(j, s);
      j.field("bound_s", s.bound_s).field("limited_by", resource(s.limited_by));
    } else {
      j.value(s.error);
    }
    j.end_object();
  }
  j.end_array();
  return j.str() + "\n";
}

std::string sweep_csv(const search::Sweep& sweep, const std::vector<search::Simulated>& results) {
  const std::vector<search::Vary>& vs = sweep.varies;
  const std::size_t n = results.size();
  std::vector<std::string> header;
  for (const search::Vary& v : vs) header.push_back(v.key);
  for (const char* h : {"step_s", "tokens_per_s_per_gpu", "mfu_fraction", "compute_s",
                        "exposed_comm_s", "bubble_s", "other_idle_s", "overlapped_comm_s",
                        "bound_s", "limited_by", "peak_memory_gb", "fits", "error"})
    header.emplace_back(h);
  format::CsvTable t(header);
  for (std::size_t i = 0; i < n; ++i) {
    const search::Simulated& s = results[i];
    const auto at = sweep.at(i);
    t.row();
    for (std::size_t k = 0; k < vs.size(); ++k) t.text(vs[k].values[at[k]]);
    if (s.error.empty()) {
      t.number(s.step_s).number(s.tokens_per_s_per_gpu).number(s.mfu).number(s.mean.compute);
      t.number(s.mean.exposed_comm).number(s.mean.bubble).number(s.mean.other_idle);
      t.number(s.mean.overlapped_comm).number(s.bound_s).text(resource(s.limited_by));
      t.number(s.peak_memory / format::kGB).boolean(s.fits()).empty();
    } else {
      t.empty(12).text(s.error);
    }
  }
  return t.str();
}

}  // namespace stepsim::report
