#include "sim/report/profile_report.hpp"

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

}  // namespace stepsim::report
