#include "sim/report/collective_report.hpp"

#include <algorithm>
#include <sstream>

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

std::string collective_text(const run::CollectiveSizes& s, const CollectiveAsked& asked) {
  std::ostringstream o;
  o << asked.op << " over " << asked.group << " (" << s.group_size << " GPUs) on " << s.cluster
    << ", algorithm " << asked.algorithm << ", " << asked.fidelity << " fidelity\n";
  format::TextTable t({"size", "algorithm", "protocol", "channels", "chunks", "steps", "latency",
                       "time", "tuner est", "algbw GB/s", "busbw GB/s", "IB GB/s/GPU", "bottleneck",
                       "flows"});
  for (const run::CollectiveRow& row : s.rows) {
    const net::CollectiveResult& r = row.result;
    const double sec = r.time.seconds();
    t.row({format::binary_bytes(r.bytes), r.algorithm, r.protocol, std::to_string(r.channels),
           std::to_string(r.stream_chunks), std::to_string(row.steps),
           format::seconds(row.latency_s), format::seconds(sec), format::seconds(r.predicted_s),
           format::fixed(r.algbw / 1e9, 2), format::fixed(r.busbw / 1e9, 2),
           format::fixed(sec > 0 ? r.ib_bytes_per_gpu / sec / 1e9 : 0.0, 2),
           std::string(hw::to_string(r.bottleneck)) + " " +
               format::fixed(100 * r.bottleneck_utilization, 0) + "%",
           std::to_string(r.flows)});
  }
  o << t.render();
  const auto& last =
      std::max_element(s.rows.begin(), s.rows.end(), [](const auto& a, const auto& b) {
        return a.result.bytes < b.result.bytes;
      })->result;
  if (last.phases.size() > 1) {
    // The phases of the largest size; each phase's busbw is the bytes a GPU sends in it over its
    // time.
    o << "phases at " << format::binary_bytes(last.bytes) << ":\n";
    format::TextTable pt({"phase", "steps", "time", "share", "busbw GB/s", "bottleneck"});
    for (const auto& ph : last.phases)
      pt.row({ph.name, std::to_string(ph.repeat), format::seconds(ph.elapsed.seconds()),
              format::fixed(100.0 * ph.elapsed.seconds() / last.time.seconds(), 0) + "%",
              format::fixed(ph.busbw / 1e9, 2),
              std::string(hw::to_string(ph.bottleneck)) + " " +
                  format::fixed(100 * ph.bottleneck_utilization, 0) + "%"});
    o << pt.render();
  }
  return o.str();
}

std::string collective_json(const run::CollectiveSizes& s, const CollectiveAsked& asked) {
  format::JsonWriter w;
  w.begin_object();
  w.field("cluster", s.cluster);
  w.field("op", asked.op);
  w.field("group", asked.group);
  w.field("group_size", s.group_size);
  w.field("fidelity", asked.fidelity);
  w.field("algorithm_requested", asked.algorithm);
  w.key("rows").begin_array();
  for (const run::CollectiveRow& row : s.rows) {
    const net::CollectiveResult& r = row.result;
    w.begin_object();
    w.field("bytes", r.bytes);
    w.field("steps", row.steps);
    w.field("latency_s", row.latency_s);
    w.field("algorithm", r.algorithm);
    w.field("protocol", r.protocol);
    w.field("channels", r.channels);
    w.field("chunks", r.stream_chunks);
    w.field("time_s", r.time.seconds());
    w.field("predicted_s", r.predicted_s);
    w.field("algbw_gbps", r.algbw / 1e9);
    w.field("busbw_gbps", r.busbw / 1e9);
    w.field("bottleneck", hw::kLinkGroupNames.word(r.bottleneck));
    w.field("bottleneck_utilization", r.bottleneck_utilization);
    w.field("ib_gbps_per_gpu",
            r.time.seconds() > 0 ? r.ib_bytes_per_gpu / r.time.seconds() / 1e9 : 0.0);
    w.field("nvlink_gbps_per_gpu",
            r.time.seconds() > 0 ? r.nvlink_bytes_per_gpu / r.time.seconds() / 1e9 : 0.0);
    w.field("flows_simulated", static_cast<long long>(r.flows));
    w.field("events", static_cast<long long>(r.events));
    // Phases of a collective of several (hierarchical: rings inside and across nodes).
    w.key("phases").begin_array();
    for (const auto& ph : r.phases.size() > 1 ? r.phases : std::vector<net::PhaseTiming>{}) {
      w.begin_object();
      w.field("name", ph.name);
      w.field("time_s", ph.elapsed.seconds());
      w.field("steps", ph.repeat);
      w.field("sent_bytes_per_gpu", ph.sent_per_gpu);
      w.field("busbw_gbps", ph.busbw / 1e9);
      w.field("bottleneck", hw::kLinkGroupNames.word(ph.bottleneck));
      w.field("bottleneck_utilization", ph.bottleneck_utilization);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

std::string collective_csv(const run::CollectiveSizes& s) {
  // The table of sizes; a hierarchical collective's phases are in --json.
  format::CsvTable c({"bytes", "algorithm", "protocol", "channels", "chunks", "steps", "latency_s",
                      "time_s", "predicted_s", "algbw_gbps", "busbw_gbps", "ib_gbps_per_gpu",
                      "nvlink_gbps_per_gpu", "bottleneck", "bottleneck_utilization",
                      "flows_simulated", "events"});
  for (const run::CollectiveRow& row : s.rows) {
    const net::CollectiveResult& r = row.result;
    const double sec = r.time.seconds();
    c.row().number(r.bytes).text(r.algorithm).text(r.protocol).integer(r.channels);
    c.integer(r.stream_chunks).integer(row.steps).number(row.latency_s).number(sec);
    c.number(r.predicted_s).number(r.algbw / 1e9).number(r.busbw / 1e9);
    c.number(sec > 0 ? r.ib_bytes_per_gpu / sec / 1e9 : 0.0);
    c.number(sec > 0 ? r.nvlink_bytes_per_gpu / sec / 1e9 : 0.0)
        .text(hw::kLinkGroupNames.word(r.bottleneck));
    c.number(r.bottleneck_utilization).integer(static_cast<long long>(r.flows));
    c.integer(static_cast<long long>(r.events));
  }
  return c.str();
}

}  // namespace stepsim::report
