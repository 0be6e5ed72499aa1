#include "sim/analysis/kernel_listing.hpp"

#include <cmath>
#include <set>

#include "sim/format/text_table.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/workload/context_parallel.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/op_kernels.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace stepsim::analysis {

namespace {

std::string layer_name(const workload::LayerCost& l) {
  if (l.index == workload::kEmbedding) return "embedding";
  if (l.index == workload::kHead) return "head";
  if (l.index == workload::kMtpHead) return "mtp head";
  return "layer " + std::to_string(l.index) + (l.mtp ? " (mtp " : " (") +
         (l.moe ? "moe)" : "dense)");
}

}  // namespace

KernelListing list_kernels(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan,
                           int stage) {
  const workload::ModelCost cost(spec.model, spec.training);
  const spec::DeviceSpec& dev = spec.cluster.device;
  const hw::TableKernelModel model(dev);
  KernelListing out;
  out.scenario = spec.name;
  out.software_words = spec::software_words(spec);
  out.software = spec.software.name;
  out.gemm_library = spec.software.gemm_library;
  out.attention = spec::attention_words(spec.training);
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
    std::set<std::string> attention_core;
    const workload::OpCost* core = nullptr;
    for (const auto& op : l.ops) {
      ops.push_back(&op);
      if (op.cls == workload::OpClass::attention_core) {
        attention_core.insert(op.name);
        core = &op;
      }
    }
    const spec::RecomputeSpec* recompute = li >= 0 ? &spec.training.recompute : nullptr;
    for (const workload::Phase phase :
         {workload::Phase::forward, workload::Phase::backward, workload::Phase::weight}) {
      std::vector<hw::Kernel> ks;
      workload::append_pass_kernels(ops, phase, recompute, ctx, ks);
      if (ks.empty()) continue;
      if (plan.cp > 1 && core) {  // the attention core as the blocks context parallelism runs
        std::vector<hw::Kernel> split;
        for (const hw::Kernel& k : ks)
          if (k.cls == &hw::kAttentionClass) {
            for (const hw::Kernel& b : workload::cp_attention_kernels(
                     *core, k.backward, k.recompute, ctx, workload::cp_layout(plan)))
              split.push_back(b);
          } else {
            split.push_back(k);
          }
        ks = std::move(split);
      }
      out.totals.push_back({layer_name(l), phase, model.run_seconds(ks, out.sm_share)});
      for (const hw::Kernel& k : ks) {
        const hw::KernelEstimate e = model.explain(k, out.sm_share);
        KernelRow r;
        r.layer = layer_name(l);
        r.phase = phase;
        r.op = k.op.data();
        r.kernel = k.name();
        r.cls = std::string(k.cls->word);
        r.shape = k.cls->shape(k);
        r.precision = k.cls->listed_precision ? std::string(spec::to_string(k.precision)) : "";
        r.flops = k.flops;
        r.bytes = k.hbm_bytes;
        r.rate = e.rate;
        r.seconds = e.seconds;
        r.rule = e.rule;
        r.source = e.source;
        r.pass = std::string(hw::pass_of(k, phase != workload::Phase::forward));
        r.recompute = k.recompute;
        r.implementation = e.library;
        if (attention_core.count(r.op))
          r.attention = std::string(spec::kAttentionKernels.word(spec.training.attention_kernel));
        out.rows.push_back(std::move(r));
      }
    }
  }
  return out;
}

}  // namespace stepsim::analysis
