#include "sim/report/profile_report.hpp"

#include <cstdio>

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

namespace {

std::string share(double part, double whole) {
  return whole > 0.0 ? format::fixed(100.0 * part / whole, 1) + " %" : "-";
}

std::string rank_name(const profile::RankSummary& r) {
  return r.file.rank >= 0 ? "rank " + std::to_string(r.file.rank) : "rank ?";
}

}  // namespace

std::string profile_summary_text(const std::vector<profile::RankSummary>& ranks) {
  std::string out = "GPU time by kernel class, " + std::to_string(ranks.size()) +
                    (ranks.size() == 1 ? " trace" : " traces") +
                    " (share: of the span from the first GPU event to the last; streams overlap, "
                    "so shares can add up to more than 100 %)\n";
  for (const profile::RankSummary& r : ranks) {
    out += "\n" + rank_name(r) + " (" + r.file.path + "): " + std::to_string(r.gpu_events) +
           " GPU events; span " + format::seconds(r.span_s) + ", busy " +
           format::seconds(r.busy_s) + ", idle " + format::seconds(r.idle_s()) + " (" +
           share(r.idle_s(), r.span_s) + ")\n";
    format::TextTable t({"class", "time", "count", "of span"});
    for (const profile::ClassTime& c : r.classes)
      t.row({c.cls.label(), format::seconds(c.seconds), std::to_string(c.count),
             share(c.seconds, r.span_s)});
    t.row({"idle (no stream busy)", format::seconds(r.idle_s()), "-", share(r.idle_s(), r.span_s)});
    out += t.render();
  }
  return out.back() == '\n' ? out : out + "\n";
}

std::string profile_summary_json(const std::vector<profile::RankSummary>& ranks) {
  format::JsonWriter w;
  w.begin_object().key("ranks").begin_array();
  for (const profile::RankSummary& r : ranks) {
    w.begin_object();
    w.field("file", r.file.path);
    if (r.file.rank >= 0)
      w.field("rank", r.file.rank);
    else
      w.key("rank").null();
    w.field("world_size", r.file.world_size);
    w.field("events", r.file.events).field("gpu_events", r.gpu_events);
    w.field("span_s", r.span_s).field("busy_s", r.busy_s).field("idle_s", r.idle_s());
    w.key("classes").begin_array();
    for (const profile::ClassTime& c : r.classes) {
      w.begin_object().field("class", c.cls.group).field("detail", c.cls.detail);
      w.field("time_s", c.seconds).field("count", c.count);
      w.field("share_of_span_fraction", r.span_s > 0.0 ? c.seconds / r.span_s : 0.0);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object();
  std::string text = w.str();
  return text.back() == '\n' ? text : text + "\n";
}

std::string profile_summary_csv(const std::vector<profile::RankSummary>& ranks) {
  format::CsvTable t(
      {"file", "rank", "class", "detail", "time_s", "count", "share_of_span_fraction"});
  for (const profile::RankSummary& r : ranks) {
    auto start = [&] {
      t.row().text(r.file.path);
      if (r.file.rank >= 0)
        t.integer(r.file.rank);
      else
        t.empty();
    };
    for (const profile::ClassTime& c : r.classes) {
      start();
      t.text(c.cls.group).text(c.cls.detail).number(c.seconds).integer(c.count);
      t.number(r.span_s > 0.0 ? c.seconds / r.span_s : 0.0);
    }
    start();
    t.text("idle").text("").number(r.idle_s()).empty();
    t.number(r.span_s > 0.0 ? r.idle_s() / r.span_s : 0.0);
  }
  return t.str();
}

namespace {

std::string time_or_dash(double s) {
  return s > 0.0 ? format::seconds(s) : "-";
}

void rows_json(format::JsonWriter& w, const char* key, const std::vector<profile::CompareRow>& rs) {
  w.key(key).begin_array();
  for (const profile::CompareRow& r : rs) {
    w.begin_object().field("label", r.label);
    w.field("measured_s", r.measured_s).field("simulated_s", r.simulated_s);
    w.field("measured_count", r.measured_count).field("simulated_count", r.simulated_count);
    if (r.ratio() > 0.0)
      w.field("ratio", r.ratio());
    else
      w.key("ratio").null();
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string ratio_text(const profile::CompareRow& r) {
  if (r.measured_s > 0.0 && r.simulated_s <= 0.0) return "not simulated";
  if (r.measured_s <= 0.0 && r.simulated_s > 0.0) return "not in profile";
  const double q = r.ratio();
  if (q <= 0.0) return "-";
  if (q >= 0.01 && q < 1000.0) return format::fixed(q, 3);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", q);  // three figures: 8.17e-06
  return buf;
}

std::string profile_compare_text(const std::vector<ProfileComparison>& cs) {
  std::string out;
  for (const ProfileComparison& pc : cs) {
    const profile::Comparison& c = pc.c;
    if (!out.empty()) out += "\n";
    out += c.measured.file.path + " (" + rank_name(c.measured) + ") against " + pc.against +
           "\n  span " + format::seconds(c.measured.span_s) + " measured, " +
           format::seconds(c.simulated.span_s) + " simulated; idle " +
           format::seconds(c.measured.idle_s()) + " measured, " +
           format::seconds(c.simulated.idle_s()) + " simulated\n";
    format::TextTable t({"class", "measured", "simulated", "ratio", "count", "simulated count"});
    for (const profile::CompareRow& r : c.classes)
      t.row({r.label, time_or_dash(r.measured_s), time_or_dash(r.simulated_s), ratio_text(r),
             std::to_string(r.measured_count), std::to_string(r.simulated_count)});
    out += t.render();
    if (!c.layers.empty()) {
      out += "\n  per layer (the kernels of ops whose annotation names the layer)\n";
      format::TextTable l({"layer", "measured", "simulated", "ratio"});
      for (const profile::CompareRow& r : c.layers)
        l.row({r.label, time_or_dash(r.measured_s), time_or_dash(r.simulated_s), ratio_text(r)});
      out += l.render("    ");
    }
    if (!c.kernels.empty()) {
      out += "\n  the kernels whose times differ most\n";
      format::TextTable k({"kernel", "measured", "simulated", "ratio"});
      for (const profile::CompareRow& r : c.kernels)
        k.row({r.label.size() > 60 ? r.label.substr(0, 57) + "..." : r.label,
               time_or_dash(r.measured_s), time_or_dash(r.simulated_s), ratio_text(r)});
      out += k.render("    ");
    }
  }
  return out.empty() || out.back() == '\n' ? out : out + "\n";
}

std::string profile_compare_json(const std::vector<ProfileComparison>& cs) {
  format::JsonWriter w;
  w.begin_object().key("comparisons").begin_array();
  for (const ProfileComparison& pc : cs) {
    const profile::Comparison& c = pc.c;
    w.begin_object().field("file", c.measured.file.path);
    if (c.measured.file.rank >= 0)
      w.field("rank", c.measured.file.rank);
    else
      w.key("rank").null();
    w.field("against", pc.against);
    w.field("measured_span_s", c.measured.span_s).field("simulated_span_s", c.simulated.span_s);
    w.field("measured_idle_s", c.measured.idle_s()).field("simulated_idle_s", c.simulated.idle_s());
    rows_json(w, "classes", c.classes);
    rows_json(w, "layers", c.layers);
    rows_json(w, "kernels", c.kernels);
    w.end_object();
  }
  w.end_array().end_object();
  std::string text = w.str();
  return text.back() == '\n' ? text : text + "\n";
}

std::string profile_compare_csv(const std::vector<ProfileComparison>& cs) {
  format::CsvTable t({"file", "rank", "table", "label", "measured_s", "simulated_s", "ratio",
                      "measured_count", "simulated_count"});
  for (const ProfileComparison& pc : cs) {
    const profile::Comparison& c = pc.c;
    auto rows = [&](const char* table, const std::vector<profile::CompareRow>& rs) {
      for (const profile::CompareRow& r : rs) {
        t.row().text(c.measured.file.path);
        if (c.measured.file.rank >= 0)
          t.integer(c.measured.file.rank);
        else
          t.empty();
        t.text(table).text(r.label).number(r.measured_s).number(r.simulated_s);
        if (r.ratio() > 0.0)
          t.number(r.ratio());
        else
          t.empty();
        t.integer(r.measured_count).integer(r.simulated_count);
      }
    };
    rows("class", c.classes);
    rows("layer", c.layers);
    rows("kernel", c.kernels);
  }
  return t.str();
}

}  // namespace stepsim::report
