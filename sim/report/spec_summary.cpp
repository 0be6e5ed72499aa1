#include "sim/report/spec_summary.hpp"

#include "sim/analysis/roofline.hpp"
#include "sim/format/text_table.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::report {

using format::fixed;
using format::seconds;

std::string describe(const spec::CommBesideCompute& c) {
  return "x" + fixed(c.compute_bound, 2) + " (compute-bound kernels), x" +
         fixed(c.memory_bound, 2) + " (memory-bound) (" + c.source + ")";
}

std::string describe(const spec::DeviceSpec& d) {
  std::string o = "device  " + d.name + ": " + std::to_string(d.sms) + " SMs, " +
                  fixed(d.memory_bytes / 1e9, 2) + " GB HBM at " +
                  fixed(d.hbm_bandwidth / 1e12, 2) + " TB/s\n";
  for (int i = 0; i < spec::kPrecisionCount; ++i) {
    const auto p = static_cast<spec::Precision>(i);
    if (!d.supports(p)) continue;
    const auto& r = d.rate(p);
    o += "        " + std::string(spec::to_string(p)) + ": " + fixed(r.achievable_flops / 1e12, 0) +
         " TFLOP/s achievable of " + fixed(r.peak_flops / 1e12, 0) + " peak (" +
         fixed(100.0 * r.achievable_flops / r.peak_flops, 1) + "%)\n";
  }
  const auto& t = d.tables;
  o += "        sustained clock x" + fixed(t.sustained_clock, 3) +
       (t.sustained_clock_source.empty() ? " (none set: rows as measured)"
                                         : " (" + t.sustained_clock_source + ")") +
       "\n";
  if (const spec::CommBesideCompute& c = d.comm_beside_compute; c.active())
    o += "        communication beside compute " + describe(c) + "\n";
  for (std::size_t i = 0; i < t.sources.size(); ++i) {
    int rows = 0;
    std::string what;
    auto count = [&](const auto& table, const char* kind) {
      for (const auto& r : table)
        if (r.source == static_cast<int>(i)) ++rows, what = kind;
    };
    count(t.gemm, "GEMM");
    for (const auto& r : t.gemm)
      if (r.source == static_cast<int>(i) && r.pass != spec::GemmPass::any)
        what = std::string(spec::kGemmPasses.word(r.pass)) + " GEMM";
    count(t.attention, "attention");
    count(t.memory, "memory");
    o += "        table " + t.sources[i].name + ": " + std::to_string(rows) + " " + what +
         " rows, " + (t.sources[i].sustained ? "sustained" : "burst") + " clock; " +
         t.sources[i].description + "\n";
  }
  return o;
}

std::string describe(const spec::ClusterSpec& c) {
  std::string o = "cluster " + c.name + ": " + std::to_string(c.nodes) + " nodes x " +
                  std::to_string(c.gpus_per_node) + " GPUs = " + std::to_string(c.world_size()) +
                  " GPUs\n";
  o += "        NVLink " + fixed(c.nvlink.bandwidth / 1e9, 0) +
       " GB/s per direction per GPU (peak " + fixed(c.nvlink.peak_bandwidth / 1e9, 0) + "), " +
       fixed(c.nvlink.latency_s * 1e6, 1) + " us" +
       (c.nvls_bandwidth > 0.0 ? ", NVLS " + fixed(c.nvls_bandwidth / 1e9, 0) + " GB/s" : "") +
       (c.deepep_nvlink_bandwidth > 0.0 ? ", DeepEP " + fixed(c.deepep_nvlink_bandwidth / 1e9, 0) +
                                              " GB/s with " + std::to_string(c.deepep_sms) + " SMs"
                                        : "") +
       "\n";
  if (c.fabric.kind != spec::FabricKind::none)
    o += "        fabric " + std::string(spec::kFabricKinds.phrase(c.fabric.kind)) + ", " +
         std::to_string(c.fabric.planes) + " plane(s), " + std::to_string(c.fabric.switch_ports) +
         "-port switches, NIC " + fixed(c.fabric.nic.bandwidth / 1e9, 0) + " GB/s per GPU, " +
         fixed(c.fabric.nic.latency_s * 1e6, 1) + " us, oversubscription " +
         fixed(c.fabric.oversubscription, 1) +
         (c.fabric.kind == spec::FabricKind::clos3
              ? ", pods of " + std::to_string(c.fabric.leaves_per_pod) +
                    " leaves, aggregation oversubscription " +
                    fixed(c.fabric.pod_oversubscription, 1)
              : "") +
         (c.fabric.routing == spec::Routing::ecmp_hash ? ", ECMP hash routing" : "") +
         (c.fabric.sharp ? ", SHARP" : "") + "\n";
  return o + describe(c.device);
}

// FLOPs per token depend on the sequence (the attention core) and on causality: a model file
// alone is described at sequence 4096, causal; a scenario at its own.
std::string describe(const spec::ModelSpec& m, const workload::ModelFigures& cost,
                     const spec::TrainingSpec& t) {
  std::string o = "model   " + m.name + ": " + std::to_string(m.layers) + " layers, hidden " +
                  std::to_string(m.hidden) + ", " +
                  std::string(spec::kAttentionKinds.phrase(m.attention.kind)) + " " +
                  std::to_string(m.attention.heads) + " heads";
  if (m.attention.kind == spec::AttentionKind::gqa)
    o += " (" + std::to_string(m.attention.kv_heads) + " kv)";
  if (m.moe.enabled)
    o += ", MoE " + std::to_string(m.moe.experts) + " experts top-" + std::to_string(m.moe.top_k) +
         (m.moe.shared_experts ? " + " + std::to_string(m.moe.shared_experts) + " shared" : "");
  o += "\n        " + fixed(cost.params_main / 1e9, 2) + " B parameters" +
       (cost.params_mtp > 0 ? " + " + fixed(cost.params_mtp / 1e9, 2) + " B in MTP modules" : "") +
       ", " + fixed(cost.params_active / 1e9, 2) + " B active per token, " +
       fixed(cost.flops_per_token / 1e9, 1) + " GFLOP per token for training at sequence " +
       std::to_string(t.seq_len) + (t.causal ? " (causal attention)\n" : " (full attention)\n");
  for (const std::string& n : m.not_modelled) o += "        not modelled: " + n + "\n";
  return o;
}

std::string describe(const run::Bounded& b) {
  const spec::ScenarioSpec& s = b.spec();
  const analysis::Roofline& r = b.roofline;
  const auto& plan = b.plan();
  std::string o = "scenario " + s.name + "\n" + describe(s.model, b.prepared.model, s.training) +
                  describe(s.cluster);
  o += "layout  dp " + std::to_string(plan.dp) + " x pp " + std::to_string(plan.pp) +
       (plan.cp > 1 ? " x cp " + std::to_string(plan.cp) + " (" +
                          std::string(spec::kCpAlgorithms.phrase(plan.cp_algorithm)) + ")"
                    : "") +
       " x tp " + std::to_string(plan.tp) + ", ep " + std::to_string(plan.ep) + ", ZeRO-" +
       std::to_string(s.parallel.zero) + ", schedule " +
       std::string(workload::to_string(s.parallel.schedule)) + ", " +
       std::to_string(plan.micro_batches) + " micro-batches of " +
       fixed(plan.tokens_per_micro_batch * plan.cp, 0) + " tokens per pipeline\n";
  std::string split;
  for (int n : plan.stage_layers) split += (split.empty() ? "" : ",") + std::to_string(n);
  o += "stages  " + std::to_string(plan.stages) + " of [" + split +
       "] layers (embedding on the first, head on the last" +
       (s.parallel.account_embedding || s.parallel.account_head ? ", counted in the split" : "") +
       ")\n";
  const auto& pr = s.training.precision;
  const auto name = [](spec::Precision p) { return std::string(spec::to_string(p)); };
  o += "train   gemm " + name(pr.gemm) + ", attention " + name(pr.attention) + ", head " +
       name(pr.head) + ", activations " + name(pr.activations) + ", MLP activation input " +
       name(pr.mlp_act_input.value_or(pr.activations)) + ", dispatch " + name(pr.dispatch) +
       ", combine " + name(pr.combine) + "; params " + name(pr.params) + ", grads " +
       name(pr.grads) + ", master " + name(pr.master) + ", optimizer " + name(pr.optimizer) + "\n";
  static const char* kRecompute[] = {"none", "full", "selective"};
  std::string rc;
  if (s.training.recompute.mode == spec::RecomputeMode::ops)
    for (const auto& op : s.training.recompute.ops) rc += (rc.empty() ? "" : ", ") + op;
  else
    rc = kRecompute[static_cast<int>(s.training.recompute.mode)];
  o += "        recompute " + rc + "\n";
  o += "        software " + spec::software_words(s) + "\n";
  o += "bound   " + seconds(r.bound_s) + " per step (roofline), limited by " +
       std::string(analysis::kResources.word(r.limited_by)) + "; memory " +
       fixed(b.prepared.memory.total() / 1e9, 1) + " of " +
       fixed(b.prepared.memory.capacity / 1e9, 1) + " GB per GPU\n";
  return o;
}

}  // namespace stepsim::report
