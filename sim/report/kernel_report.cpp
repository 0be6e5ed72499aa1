#include "sim/report/kernel_report.hpp"

#include <cstdio>
#include <set>

#include "sim/format/json_writer.hpp"
#include "sim/format/text_table.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/op_kernels.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::report {

using format::fixed;
using format::JsonWriter;
using format::seconds;
using format::si;
using format::TextTable;

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string shape_of(const hw::Kernel& k) {
  switch (k.cls) {
    case hw::KernelClass::gemm:
      return (k.groups > 1 ? num(k.groups) + "x" : "") + num(k.m) + "x" + num(k.n) + "x" + num(k.k);
    case hw::KernelClass::attention:
      return "s" + num(k.seq) + " d" + num(k.head_dim) + (k.causal ? " causal" : "");
    case hw::KernelClass::memory:
      return "";
  }
  return "";
}

std::string layer_name(const workload::LayerCost& l) {
  if (l.index == workload::kEmbedding) return "embedding";
  if (l.index == workload::kHead) return "head";
  if (l.index == workload::kMtpHead) return "mtp head";
  return "layer " + std::to_string(l.index) + (l.mtp ? " (mtp " : " (") +
         (l.moe ? "moe)" : "dense)");
}

}  // namespace

KernelListing list_kernels(const workload::ScenarioSpec& spec, int stage) {
  const workload::ParallelPlan plan = workload::make_plan(spec);
  const workload::ModelCost cost(spec.model, spec.training);
  const hw::DeviceSpec& dev = spec.cluster.device;
  const hw::TableKernelModel model(dev);
  KernelListing out;
  out.stage = stage;
  out.sm_share = dev.compute_sm_share(spec.parallel.comm_sms);
  out.sustained_clock = dev.tables.sustained_clock;
  const workload::KernelContext ctx =
      workload::kernel_context(spec.model, spec.training, plan.tokens_per_micro_batch, plan.tp,
                               plan.ep, spec.parallel.sequence_parallel);
  std::set<std::string> kinds;  // one layer of each kind
  for (int li : workload::stage_layer_indices(plan, stage)) {
    const workload::LayerCost& l = workload::layer_of(cost, li);
    const std::string kind =
        li < 0 ? layer_name(l) : std::string(l.mtp ? "mtp " : "") + (l.moe ? "moe" : "dense");
    if (!kinds.insert(kind).second) continue;
    std::vector<const workload::OpCost*> ops;
    for (const auto& op : l.ops) ops.push_back(&op);
    const workload::RecomputeSpec* recompute = li >= 0 ? &spec.training.recompute : nullptr;
    for (const workload::Phase phase :
         {workload::Phase::forward, workload::Phase::backward, workload::Phase::weight}) {
      std::vector<hw::Kernel> ks;
      workload::append_pass_kernels(ops, phase, recompute, ctx, ks);
      if (ks.empty()) continue;
      out.totals.push_back({layer_name(l), phase, model.run_seconds(ks, out.sm_share)});
      for (const hw::Kernel& k : ks) {
        const hw::KernelEstimate e = model.explain(k, out.sm_share);
        KernelRow r;
        r.layer = layer_name(l);
        r.phase = phase;
        r.op = k.op.data();
        r.kernel = k.name();
        r.cls = std::string(hw::to_string(k.cls));
        r.shape = shape_of(k);
        r.precision =
            k.cls == hw::KernelClass::memory ? "" : std::string(hw::to_string(k.precision));
        r.flops = k.flops;
        r.bytes = k.hbm_bytes;
        r.rate = e.rate;
        r.seconds = e.seconds;
        r.rule = e.rule;
        out.rows.push_back(std::move(r));
      }
    }
  }
  return out;
}

std::string kernels_text(const KernelListing& k, const workload::ScenarioSpec& spec) {
  std::string o = spec.name + ": kernels of one GPU of stage " + std::to_string(k.stage) +
                  ", one micro-batch, one layer of each kind\n";
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
                                                   "FLOPs", "bytes", "rate", "time", "from"});
      t = &tables.back();
      t->left_align_from(9);
    }
    const bool mem = r.cls == "memory";
    t->row({std::string(1, workload::letter(r.phase)), r.kernel, r.cls, r.shape, r.precision,
            r.flops > 0 ? si(r.flops, "FLOP") : "", si(r.bytes, "B"),
            r.rate > 0
                ? (mem ? fixed(r.rate / 1e9, 0) + " GB/s" : fixed(r.rate / 1e12, 0) + " TFLOP/s")
                : "",
            fixed(r.seconds * 1e6, 1) + " us", r.rule});
  }
  flush();
  return o;
}

std::string kernels_json(const KernelListing& k) {
  JsonWriter w;
  w.begin_object();
  w.field("stage", k.stage);
  w.field("sm_share", k.sm_share);
  w.field("sustained_clock", k.sustained_clock);
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
    w.field("rate", r.rate);
    w.field("seconds", r.seconds);
    w.field("from", r.rule);
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
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string o = "layer,phase,op,kernel,class,shape,precision,flops,bytes,rate,seconds,from\n";
  for (const KernelRow& r : k.rows) {
    char nums[160];
    std::snprintf(nums, sizeof nums, "%.17g,%.17g,%.17g,%.17g", r.flops, r.bytes, r.rate,
                  r.seconds);
    o += quote(r.layer) + "," + std::string(1, workload::letter(r.phase)) + "," + quote(r.op) +
         "," + quote(r.kernel) + "," + r.cls + "," + quote(r.shape) + "," + r.precision + "," +
         nums + "," + quote(r.rule) + "\n";
  }
  return o;
}

}  // namespace stepsim::report
