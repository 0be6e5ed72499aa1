#include "sim/report/collective_report.hpp"

#include <algorithm>
#include <sstream>

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

namespace {

// Whole elements of the data type in a buffer of `bytes` (nccl-tests' count).
long long element_count(double bytes, const CollectiveAsked& asked) {
  return static_cast<long long>(bytes / asked.datatype_bytes);
}

// nccl-tests' table: size and count, type and reduction, time in microseconds, algbw and busbw,
// then what stepsim adds (the algorithm and protocol chosen, the bottleneck); its closing line
// the mean bus bandwidth over the sizes, as nccl-tests prints it.
std::string nccl_tests_table(const run::CollectiveSizes& s, const CollectiveAsked& asked) {
  const bool reduces = asked.op == "all_reduce" || asked.op == "reduce_scatter";
  format::TextTable t({"size (B)", "count (elements)", "type", "redop", "time (us)", "algbw (GB/s)",
                       "busbw (GB/s)", "algorithm", "protocol", "bottleneck"});
  double busbw = 0.0;
  for (const run::CollectiveRow& row : s.rows) {
    const net::CollectiveResult& r = row.result;
    busbw += r.busbw / 1e9;
    t.row({format::fixed(r.bytes, 0), std::to_string(element_count(r.bytes, asked)), asked.datatype,
           reduces ? "sum" : "none", format::fixed(r.time.seconds() * 1e6, 2),
           format::fixed(r.algbw / 1e9, 2), format::fixed(r.busbw / 1e9, 2), r.algorithm,
           r.protocol,
           std::string(hw::to_string(r.bottleneck)) + " " +
               format::fixed(100 * r.bottleneck_utilization, 0) + "%"});
  }
  t.left_align_from(7);
  return t.render() + "# Avg bus bandwidth    : " +
         format::fixed(s.rows.empty() ? 0.0 : busbw / static_cast<double>(s.rows.size()), 3) +
         " GB/s\n";
}

}  // namespace

std::string collective_text(const run::CollectiveSizes& s, const CollectiveAsked& asked) {
  std::ostringstream o;
  o << asked.op << " over " << asked.group << " (" << s.group_size << " GPUs) on " << s.cluster
    << ", algorithm " << asked.algorithm << ", " << asked.fidelity << " fidelity\n";
  if (asked.sweep) return o.str() + nccl_tests_table(s, asked);
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
  w.field("datatype", asked.datatype).field("datatype_bytes", asked.datatype_bytes);
  w.key("rows").begin_array();
  for (const run::CollectiveRow& row : s.rows) {
    const net::CollectiveResult& r = row.result;
    w.begin_object();
    w.field("bytes", r.bytes);
    w.field("count", element_count(r.bytes, asked));
    w.field("steps", row.steps);
    w.field("latency_s", row.latency_s);
    w.field("algorithm", r.algorithm);
    w.field("protocol", r.protocol);
    w.field("channels", r.channels);
    w.field("chunks", r.stream_chunks);
    w.field("time_s", r.time.seconds());
    w.field("predicted_s", r.predicted_s);
    w.field("algbw_gb_per_s", r.algbw / 1e9);
    w.field("busbw_gb_per_s", r.busbw / 1e9);
    w.field("bottleneck", hw::kLinkGroupNames.word(r.bottleneck));
    w.field("bottleneck_utilization_fraction", r.bottleneck_utilization);
    w.field("ib_gb_per_s_per_gpu",
            r.time.seconds() > 0 ? r.ib_bytes_per_gpu / r.time.seconds() / 1e9 : 0.0);
    w.field("nvlink_gb_per_s_per_gpu",
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
      w.field("busbw_gb_per_s", ph.busbw / 1e9);
      w.field("bottleneck", hw::kLinkGroupNames.word(ph.bottleneck));
      w.field("bottleneck_utilization_fraction", ph.bottleneck_utilization);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

std::string collective_csv(const run::CollectiveSizes& s, const CollectiveAsked& asked) {
  // The table of sizes; a hierarchical collective's phases are in --json.
  format::CsvTable c({"bytes", "count", "datatype", "algorithm", "protocol", "channels", "chunks",
                      "steps", "latency_s", "time_s", "predicted_s", "algbw_gb_per_s",
                      "busbw_gb_per_s", "ib_gb_per_s_per_gpu", "nvlink_gb_per_s_per_gpu",
                      "bottleneck", "bottleneck_utilization_fraction", "flows_simulated",
                      "events"});
  for (const run::CollectiveRow& row : s.rows) {
    const net::CollectiveResult& r = row.result;
    const double sec = r.time.seconds();
    c.row().number(r.bytes).integer(element_count(r.bytes, asked)).text(asked.datatype);
    c.text(r.algorithm).text(r.protocol).integer(r.channels);
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
