#include "sim/report/kernel_report.hpp"

#include "sim/format/csv_table.hpp"
#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

using format::fixed;
using format::JsonWriter;
using format::seconds;
using format::si;
using format::TextTable;

using analysis::KernelListing;
using analysis::KernelRow;
using analysis::KernelTotal;

std::string kernels_text(const KernelListing& k) {
  std::string o = k.scenario + ": kernels of one GPU of stage " + std::to_string(k.stage) +
                  ", one micro-batch, one layer of each kind\n";
  o += "  software " + k.software_words + "\n";
  o += "  SMs left to compute " + fixed(100.0 * k.sm_share, 1) + " %, sustained clock x" +
       fixed(k.sustained_clock, 3) + " on burst-clock table rows\n";
  std::string layer;
  TextTable* t = nullptr;
  std::vector<TextTable> tables;
  auto flush = [&] {
    if (!t) return;
    o += "\n" + layer + "\n" + t->render();
    o += "  total:";
    for (const KernelTotal& tot : k.totals)
      if (tot.layer == layer)
        o += std::string(" ") + workload::letter(tot.phase) + " " + seconds(tot.seconds);
    o += "\n";
  };
  for (const KernelRow& r : k.rows) {
    if (r.layer != layer) {
      flush();
      layer = r.layer;
      tables.emplace_back(std::vector<std::string>{"phase", "kernel", "class", "shape", "prec",
                                                   "FLOPs", "bytes", "rate", "time", "impl",
                                                   "from"});
      t = &tables.back();
      t->left_align_from(9);
    }
    const bool mem = r.cls == "memory";
    t->row({std::string(1, workload::letter(r.phase)), r.kernel, r.cls, r.shape, r.precision,
            r.flops > 0 ? si(r.flops, "FLOP") : "", si(r.bytes, "B"),
            r.rate > 0
                ? (mem ? fixed(r.rate / 1e9, 0) + " GB/s" : fixed(r.rate / 1e12, 0) + " TFLOP/s")
                : "",
            fixed(r.seconds * 1e6, 1) + " us", r.implementation, r.rule});
  }
  flush();
  return o;
}

std::string kernels_json(const KernelListing& k) {
  JsonWriter w;
  w.begin_object();
  w.field("software", k.software);
  w.field("attention", k.attention);
  w.field("gemm_library", k.gemm_library);
  w.field("stage", k.stage);
  w.field("sm_share_fraction", k.sm_share);
  w.field("sustained_clock_fraction", k.sustained_clock);
  w.key("kernels").begin_array();
  for (const KernelRow& r : k.rows) {
    w.begin_object();
    w.field("layer", r.layer);
    w.field("phase", std::string(1, workload::letter(r.phase)));
    w.field("op", r.op);
    w.field("kernel", r.kernel);
    w.field("class", r.cls);
    w.field("shape", r.shape);
    w.field("precision", r.precision);
    w.field("flops", r.flops);
    w.field("bytes", r.bytes);
    if (r.cls == "memory")
      w.field("rate_bytes_per_s", r.rate);
    else
      w.field("rate_flop_per_s", r.rate);
    w.field("seconds", r.seconds);
    w.field("from", r.rule);
    w.field("pass", r.pass);
    w.field("recompute", r.recompute);
    w.field("implementation", r.implementation);
    if (!r.attention.empty()) w.field("attention", r.attention);
    w.field("source", r.source);
    w.end_object();
  }
  w.end_array();
  w.key("totals").begin_array();
  for (const KernelTotal& t : k.totals) {
    w.begin_object();
    w.field("layer", t.layer);
    w.field("phase", std::string(1, workload::letter(t.phase)));
    w.field("seconds", t.seconds);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::string s = w.str();
  if (s.back() != '\n') s += '\n';
  return s;
}

std::string kernels_csv(const KernelListing& k) {
  format::CsvTable t({"layer", "phase", "op", "kernel", "class", "shape", "precision", "flops",
                      "bytes", "rate_flop_per_s", "rate_bytes_per_s", "seconds", "from", "pass",
                      "recompute", "implementation", "source"});
  for (const KernelRow& r : k.rows) {
    const bool mem = r.cls == "memory";
    t.row().text(r.layer).text(std::string(1, workload::letter(r.phase))).text(r.op);
    t.text(r.kernel).text(r.cls).text(r.shape).text(r.precision).number(r.flops).number(r.bytes);
    if (mem)
      t.empty().number(r.rate);
    else
      t.number(r.rate).empty();
    t.number(r.seconds).text(r.rule).text(r.pass).boolean(r.recompute).text(r.implementation);
    t.text(r.source);
  }
  return t.str();
}

}  // namespace stepsim::report
