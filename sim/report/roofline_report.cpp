#include "sim/report/roofline_report.hpp"

#include "sim/report/layout_fields.hpp"

#include "sim/format/csv_table.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::report {

using format::fixed;
using format::gb;
using format::JsonWriter;
using format::seconds;
using format::si;
using format::TextTable;

using analysis::Resource;
using analysis::Roofline;
using spec::Precision;

namespace {

std::string verdict(const Roofline& r) {
  switch (r.limited_by) {
    case Resource::compute:
      return "compute-bound: communication needs " + fixed(r.comm_to_compute, 2) +
             "x the compute time, so it can be hidden under compute if the schedule overlaps them";
    case Resource::hbm:
      return "memory-bandwidth-bound: HBM traffic takes longer than the arithmetic";
    case Resource::nvlink:
    case Resource::ib:
      return std::string(analysis::kResources.phrase(r.limited_by)) +
             "-bound: communication needs " + fixed(r.comm_to_compute, 2) +
             "x the compute time; no overlap can hide it, faster arithmetic would only widen the "
             "gap";
  }
  return "";
}

std::string rate_text(const spec::DeviceSpec& device, Precision p) {
  const auto& rate = device.rate(p);
  return std::string(spec::to_string(p)) + " " + fixed(rate.achievable_flops / 1e12, 0) + " of " +
         fixed(rate.peak_flops / 1e12, 0);
}

}  // namespace

std::string roofline_text(const run::Bounded& b) {
  const Roofline& r = b.roofline;
  const spec::ScenarioSpec& spec = b.spec();
  const workload::ModelFigures& model = b.prepared.model;
  const auto& p = b.plan();
  const auto& cl = spec.cluster;
  std::string o;
  o += spec.name + "\n";
  o += "  model   " + spec.model.name + ": " + fixed(model.params_main / 1e9, 1) + " B parameters" +
       (model.params_mtp > 0 ? " + " + fixed(model.params_mtp / 1e9, 1) + " B MTP" : "") + ", " +
       fixed(model.params_active / 1e9, 1) + " B active per token, " +
       fixed(model.flops_per_token / 1e9, 1) + " GFLOP per token for training (" +
       (spec.training.causal ? "causal" : "full") + " attention)\n";
  o += "  layout  " + std::to_string(p.world) + " GPUs = dp " + std::to_string(p.dp) + " x pp " +
       std::to_string(p.pp) +
       (p.cp > 1 ? " x cp " + std::to_string(p.cp) + " (" +
                       std::string(spec::kCpAlgorithms.phrase(p.cp_algorithm)) + ")"
                 : "") +
       " x tp " + std::to_string(p.tp) +
       (p.ep > 1 ? ", ep " + std::to_string(p.ep) + " (experts replicated " +
                       std::to_string(p.edp) + "x)"
                 : "") +
       ", ZeRO-" + std::to_string(spec.parallel.zero) + ", schedule " +
       std::string(workload::to_string(spec.parallel.schedule)) + "\n";
  o += "  step    " + std::to_string(spec.training.global_batch) + " sequences x " +
       std::to_string(spec.training.seq_len) +
       " tokens = " + fixed(b.prepared.tokens_per_step / 1e6, 1) + " M tokens; " +
       std::to_string(p.micro_batches) + " micro-batches of " +
       fixed(p.tokens_per_micro_batch * p.cp, 0) + " tokens per pipeline" +
       (p.cp > 1 ? ", " + fixed(p.tokens_per_micro_batch, 0) + " on each GPU of a cp group"
                 : std::string()) +
       "\n";
  if (p.pp > 1) {
    std::string split;
    for (int n : p.stage_layers) split += (split.empty() ? "" : ",") + std::to_string(n);
    o += "  stages  " + std::to_string(p.stages) + " stages of [" + split +
         "] layers; figures below are for pipeline rank " + std::to_string(r.device) +
         ", the slowest\n";
  }

  o += "\n  Work per GPU per step\n";
  std::string by_prec;
  for (int i = 0; i < spec::kPrecisionCount; ++i)
    if (r.flops_by_precision[i] > 0)
      by_prec += (by_prec.empty() ? "" : ", ") +
                 std::string(spec::to_string(static_cast<Precision>(i))) + " " +
                 si(r.flops_by_precision[i], "FLOP");
  o += "    FLOPs  " + si(r.flops_per_gpu, "FLOP") + " (" + by_prec + "; mean over all GPUs " +
       si(r.flops_per_gpu_mean, "FLOP") + ", recompute included)\n";
  o += "    HBM    " + si(r.hbm_bytes, "B") + "\n";

  if (!r.traffic.empty()) {
    o += "\n  Communication per GPU per step (bytes sent; as many received)\n";
    TextTable t({"traffic", "NVLink", "InfiniBand", "how"});
    t.left_align_from(3);
    for (const auto& row : r.traffic)
      t.row({row.kind, gb(row.bytes.nvlink), gb(row.bytes.ib), row.collective});
    t.row({"total", gb(r.comm_bytes.nvlink), gb(r.comm_bytes.ib), ""});
    o += t.render("    ");
  }

  o += "\n  Time per resource (work / rate)\n";
  TextTable t({"resource", "achievable", "spec peak", "rates used (achievable of peak)"});
  t.left_align_from(3);
  std::string achievable;
  for (int i = 0; i < spec::kPrecisionCount; ++i)
    if (r.flops_by_precision[i] > 0)
      achievable +=
          (achievable.empty() ? "" : ", ") + rate_text(cl.device, static_cast<Precision>(i));
  achievable += " TFLOP/s";
  std::string rates =
      cl.device.tables.sources.empty()
          ? achievable
          : "kernel tables by class and shape (stepsim kernels), else " + achievable;
  rates += "; sustained clock x" + fixed(cl.device.tables.sustained_clock, 3);
  if (r.sm_share < 1.0)
    rates += "; " + std::to_string(cl.device.sms - spec.parallel.comm_sms) + "/" +
             std::to_string(cl.device.sms) + " SMs (comm_sms " +
             std::to_string(spec.parallel.comm_sms) + ")";
  t.row({"compute", seconds(r.compute_s), seconds(r.compute_peak_s), rates});
  t.row({"HBM", seconds(r.hbm_s), seconds(r.hbm_peak_s),
         fixed(r.hbm_bandwidth / 1e12, 2) + " of " + fixed(cl.device.hbm_bandwidth / 1e12, 2) +
             " TB/s"});
  t.row({"NVLink", seconds(r.nvlink_s), seconds(r.nvlink_peak_s),
         fixed(cl.nvlink.bandwidth / 1e9, 0) + " of " + fixed(cl.nvlink.peak_bandwidth / 1e9, 0) +
             " GB/s per GPU and direction"});
  if (cl.fabric.kind != spec::FabricKind::none)
    t.row({"InfiniBand", seconds(r.ib_s), seconds(r.ib_peak_s),
           fixed(cl.fabric.nic.bandwidth / 1e9, 0) + " of " +
               fixed(cl.fabric.nic.peak_bandwidth / 1e9, 0) + " GB/s per GPU and direction" +
               (cl.fabric.oversubscription > 1
                    ? "; leaf uplinks / " + fixed(cl.fabric.oversubscription, 1) +
                          " for all-to-all bytes leaving the leaf"
                    : "") +
               (cl.fabric.kind == spec::FabricKind::clos3 && cl.fabric.pod_oversubscription > 1
                    ? "; pod uplinks / " + fixed(cl.fabric.pod_oversubscription, 1) +
                          " more for those leaving the pod"
                    : "")});
  o += t.render("    ");

  o += "\n  Bound   " + seconds(r.bound_s) + " per step, limited by " +
       std::string(analysis::kResources.word(r.limited_by)) + "\n";
  o += "          " + verdict(r) + "\n";
  const auto& m = b.prepared.memory;
  o += "  Memory  " + fixed(m.total() / 1e9, 1) + " GB of " + fixed(m.capacity / 1e9, 1) +
       " GB per GPU: " + (m.fits() ? "fits" : "DOES NOT FIT") + " (params " +
       fixed(m.params / 1e9, 1) + ", grads " + fixed(m.grads / 1e9, 1) + ", optimizer " +
       fixed(m.optimizer / 1e9, 1) + ", activations " + fixed(m.activations / 1e9, 1) +
       (m.buffers > 0 ? ", buffers " + fixed(m.buffers / 1e9, 1) : "") + " GB; pipeline rank " +
       std::to_string(m.device) + ")\n";
  return o;
}

std::string roofline_comparison_text(const std::vector<const run::Bounded*>& rs,
                                     const std::vector<std::string>& labels) {
  std::vector<std::string> header{"per GPU per step"};
  for (const auto& l : labels) header.push_back(l);
  TextTable t(header);
  auto add = [&](const std::string& name, auto f) {
    std::vector<std::string> row{name};
    for (const run::Bounded* b : rs) row.push_back(f(b->roofline));
    t.row(row);
  };
  add("compute", [](const Roofline& r) { return seconds(r.compute_s); });
  add("HBM", [](const Roofline& r) { return seconds(r.hbm_s); });
  add("NVLink", [](const Roofline& r) { return seconds(r.nvlink_s); });
  add("InfiniBand", [](const Roofline& r) { return seconds(r.ib_s); });
  add("bound", [](const Roofline& r) { return seconds(r.bound_s); });
  add("limited by",
      [](const Roofline& r) { return std::string(analysis::kResources.word(r.limited_by)); });
  add("comm / compute", [](const Roofline& r) { return fixed(r.comm_to_compute, 2); });
  std::vector<std::string> memory{"memory (GB)"};
  for (const run::Bounded* b : rs) {
    const workload::MemoryBreakdown& m = b->prepared.memory;
    memory.push_back(fixed(m.total() / 1e9, 1) + (m.fits() ? "" : " (too big)"));
  }
  t.row(memory);
  std::size_t best = 0;
  for (std::size_t i = 1; i < rs.size(); ++i)
    if (rs[i]->roofline.bound_s < rs[best]->roofline.bound_s) best = i;
  return "Comparison (times at achievable rates)\n" + t.render() +
         "  fastest bound: " + labels[best] + "\n";
}

void roofline_json(JsonWriter& out, const run::Bounded& b) {
  const Roofline& r = b.roofline;
  const spec::ScenarioSpec& spec = b.spec();
  const workload::ModelFigures& model = b.prepared.model;
  const workload::ParallelPlan& plan = b.plan();
  out.begin_object();
  out.field("scenario", spec.name);
  out.field("world_size", plan.world);
  out.field("tokens_per_step", b.prepared.tokens_per_step);
  out.key("model").begin_object();
  out.field("name", spec.model.name);
  out.field("params_total", model.params_main + model.params_mtp);
  out.field("params_main", model.params_main);
  out.field("params_mtp", model.params_mtp);
  out.field("params_active", model.params_active);
  out.field("flops_per_token", model.flops_per_token);
  out.field("causal_attention", spec.training.causal);
  out.end_object();
  out.field("flops_per_gpu", r.flops_per_gpu);
  out.key("flops_per_gpu_by_precision").begin_object();
  for (int i = 0; i < spec::kPrecisionCount; ++i)
    if (r.flops_by_precision[i] > 0)
      out.field(spec::to_string(static_cast<Precision>(i)), r.flops_by_precision[i]);
  out.end_object();
  out.field("flops_per_gpu_mean", r.flops_per_gpu_mean);
  out.field("compute_s", r.compute_s);
  out.field("compute_peak_s", r.compute_peak_s);
  out.field("hbm_bytes", r.hbm_bytes);
  out.field("hbm_s", r.hbm_s);
  out.field("hbm_peak_s", r.hbm_peak_s);
  out.key("comm_s").begin_object();
  out.field("nvlink", r.nvlink_s);
  out.field("ib", r.ib_s);
  out.end_object();
  out.key("comm_peak_s").begin_object();
  out.field("nvlink", r.nvlink_peak_s);
  out.field("ib", r.ib_peak_s);
  out.end_object();
  out.key("comm_bytes").begin_object();
  out.field("nvlink", r.comm_bytes.nvlink);
  out.field("ib", r.comm_bytes.ib);
  out.end_object();
  out.key("traffic").begin_array();
  for (const auto& row : r.traffic) {
    out.begin_object();
    out.field("kind", row.kind);
    out.field("how", row.collective);
    out.field("nvlink_bytes", row.bytes.nvlink);
    out.field("ib_bytes", row.bytes.ib);
    out.end_object();
  }
  out.end_array();
  out.field("bound_s", r.bound_s);
  out.field("limited_by", analysis::kResources.word(r.limited_by));
  out.field("comm_to_compute_ratio", r.comm_to_compute);
  out.key("memory").begin_object();
  const auto& m = b.prepared.memory;
  out.field("params_gb", m.params / 1e9);
  out.field("grads_gb", m.grads / 1e9);
  out.field("optimizer_gb", m.optimizer / 1e9);
  out.field("activations_gb", m.activations / 1e9);
  out.field("buffers_gb", m.buffers / 1e9);
  out.field("total_gb", m.total() / 1e9);
  out.field("capacity_gb", m.capacity / 1e9);
  out.field("fits", m.fits());
  out.end_object();
  layout_json(out, spec);
  out.field("micro_batches_per_pipeline", static_cast<long long>(plan.micro_batches));
  out.field("slowest_pipeline_rank", r.device);
  out.end_object();
}

std::string roofline_csv(const std::vector<const run::Bounded*>& rs,
                         const std::vector<std::string>& labels) {
  std::vector<std::string> header{"scenario"};
  header.insert(header.end(), layout_columns().begin(), layout_columns().end());
  for (const char* h :
       {"bound_s", "limited_by", "compute_s", "compute_peak_s", "hbm_s", "nvlink_s", "ib_s",
        "comm_to_compute_ratio", "flops_per_gpu", "hbm_bytes", "nvlink_bytes", "ib_bytes",
        "memory_gb", "capacity_gb", "fits", "micro_batches_per_pipeline"})
    header.emplace_back(h);
  format::CsvTable t(header);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const Roofline& r = rs[i]->roofline;
    const workload::MemoryBreakdown& m = rs[i]->prepared.memory;
    const workload::ParallelPlan& plan = rs[i]->plan();
    t.row().text(labels[i]);
    layout_csv(t, rs[i]->spec());
    t.number(r.bound_s).text(analysis::kResources.word(r.limited_by)).number(r.compute_s);
    t.number(r.compute_peak_s).number(r.hbm_s).number(r.nvlink_s).number(r.ib_s);
    t.number(r.comm_to_compute).number(r.flops_per_gpu).number(r.hbm_bytes);
    t.number(r.comm_bytes.nvlink).number(r.comm_bytes.ib).number(m.total() / format::kGB);
    t.number(m.capacity / format::kGB).boolean(m.fits());
    t.integer(static_cast<long long>(plan.micro_batches));
  }
  return t.str();
}

}  // namespace stepsim::report
