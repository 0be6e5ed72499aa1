// build_program: the schedule's instruction lists, each chunk with its chain
// (made once per stage and pass) and its pipeline send, and each rank's data-parallel tail.
#include "sim/workload/step_program.hpp"

#include <algorithm>
#include <atomic>
#include <map>

#include "sim/engine/check.hpp"
#include "sim/workload/collective_options.hpp"
#include "sim/workload/layer_chains.hpp"
#include "sim/workload/memory.hpp"

namespace stepsim::workload {

using net::CollectiveOp;
using spec::bytes_per_element;

std::string_view to_string(StepOpKind k) {
  static constexpr std::string_view kNames[] = {
      "kernel",    "ep_dispatch", "ep_combine",   "tp_reduce",   "pp_send",   "dp_grads",
      "dp_params", "zero_gather", "zero_scatter", "cp_exchange", "optimizer", "barrier"};
  return kNames[static_cast<int>(k)];
}

double Work::flops() const {
  double f = 0.0;
  for (const hw::Kernel& k : kernels) f += k.flops;
  return f;
}

double Work::bytes() const {
  double b = 0.0;
  for (const CollectiveWork& c : collectives) b += c.bytes;
  return b;
}

Chunks::Chunks(std::initializer_list<Chunk> chunks) {
  STEPSIM_CHECK(chunks.size() >= 1 && chunks.size() <= items_.size(),
                "an instruction runs 1 or 2 chunks");
  for (const Chunk& c : chunks) items_[n_++] = c;
}

namespace {

class ProgramBuilder {
 public:
  ProgramBuilder(const spec::ScenarioSpec& s, const ParallelPlan& p, const ModelCost& c)
      : spec_(s), plan_(p), cost_(c), pr_(s.training.precision), chains_(s, p, c) {}

  StepProgram build() {
    StepProgram out;
    out.plan = plan_;
    out.send_options = send_options(spec_, plan_);
    out.pipeline =
        build_pipeline(spec_.parallel.schedule, plan_.pp, static_cast<int>(plan_.micro_batches),
                       spec_.parallel.virtual_stages);
    out.send_bytes = plan_.tokens_per_micro_batch / plan_.tp * spec_.model.hidden *
                     bytes_per_element(pr_.activations);
    const auto& dev = spec_.cluster.device;
    out.sm_share = dev.compute_sm_share(spec_.parallel.comm_sms);
    out.comm_sms = spec_.parallel.comm_sms;
    out.expert_load = chains_.expert_load();
    for (int r = 0; r < plan_.pp; ++r) {
      const auto m = memory_of_rank(spec_, plan_, cost_, r);
      out.static_bytes.push_back(m.params + m.grads + m.optimizer + m.buffers);
    }
    for (int st = 0; st < out.pipeline.stages; ++st)
      out.activation_bytes.push_back(stage_activation_bytes(spec_, plan_, cost_, st));
    p_ = &out;
    out.explicit_sends = out.pipeline.explicit_comm;
    out.blocking_sends = spec_.software.pipeline_sends == spec::PipelineSends::blocking;
    out.host_per_op_s = spec_.software.host_per_op_s;
    out.ranks.resize(plan_.pp);
    out.tail.resize(plan_.pp);
    for (int r = 0; r < plan_.pp; ++r) {
      for (const PipeInstr& i : out.pipeline.per_device[r]) {
        Instruction in;
        switch (i.op) {
          case PipeOp::F:
            in.chunks = {chunk(r, Phase::forward, i.a)};
            break;
          case PipeOp::B:
            in.chunks = {chunk(r, Phase::backward, i.a)};
            break;
          case PipeOp::BW:
            in.chunks = {chunk(r, Phase::backward_weight, i.a)};
            break;
          case PipeOp::W:
            in.chunks = {chunk(r, Phase::weight, i.a)};
            break;
          case PipeOp::FB:
            in.chunks = {chunk(r, Phase::forward, i.a), chunk(r, Phase::backward_weight, i.b)};
            break;
          case PipeOp::send_f:
          case PipeOp::send_b:
          case PipeOp::recv_f:
          case PipeOp::recv_b:
            // Without explicit communication, outputs leave as soon as they are computed.
            if (!out.explicit_sends) continue;
            in.kind = i.op == PipeOp::send_f || i.op == PipeOp::send_b ? Instruction::Kind::send
                                                                       : Instruction::Kind::recv;
            in.phase =
                i.op == PipeOp::send_f || i.op == PipeOp::recv_f ? Phase::forward : Phase::backward;
            in.task = i.a;
            break;
        }
        out.ranks[r].push_back(std::move(in));
      }
      out.tail[r] = build_tail(spec_, plan_, cost_, r);
    }
    // The ranks' instructions say all the lists did.
    out.pipeline.per_device.clear();
    out.pipeline.per_device.shrink_to_fit();
    return out;
  }

 private:
  Chunk chunk(int rank, Phase phase, StageTask t) {
    Chunk c{phase, t, chain(phase, t.stage), -1};
    if (phase == Phase::weight) return c;
    const int to_stage = phase == Phase::forward ? t.stage + 1 : t.stage - 1;
    if (to_stage < 0 || to_stage >= p_->pipeline.stages) return c;
    const int to = p_->pipeline.device_of(to_stage, t.mb);
    if (to != rank) c.send_to = to;
    return c;
  }

  int chain(Phase phase, int stage) {
    const auto key = std::make_pair(phase, stage);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    Chain c = phase == Phase::forward  ? chains_.forward(stage)
              : phase == Phase::weight ? chains_.weight(stage)
                                       : chains_.backward(stage, phase == Phase::backward_weight);
    p_->chains.push_back(std::move(c));
    return index_[key] = static_cast<int>(p_->chains.size()) - 1;
  }

  const spec::ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const ModelCost& cost_;
  const spec::PrecisionPolicy& pr_;
  LayerChains chains_;
  StepProgram* p_ = nullptr;
  std::map<std::pair<Phase, int>, int> index_;  // (phase, stage) -> chain
};

}  // namespace

std::vector<GradBucket> grad_buckets(const ParallelPlan& plan, const ModelCost& cost, int stage,
                                     double limit) {
  std::vector<GradBucket> out;
  const std::vector<int> layers = stage_layer_indices(plan, stage);
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const HeldParams p = layer_params(plan, cost, *it);
    if (out.empty() || (limit > 0.0 && out.back().params.dense + out.back().params.routed >= limit))
      out.emplace_back();
    out.back().layers.push_back(*it);
    out.back().params.dense += p.dense;
    out.back().params.routed += p.routed;
  }
  return out;
}

std::vector<TailWork> build_tail(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                                 const ModelCost& cost, int r) {
  const spec::PrecisionPolicy& pr = spec.training.precision;
  std::vector<TailWork> out;
  const int zero = spec.parallel.zero;
  CollectiveMaker collective(spec, plan);
  auto dp_work = [&](StepOpKind k, const std::string& part, CollectiveOp op, double dense,
                     double routed) {
    Work w;
    w.stream = StreamKind::dp;
    w.kind = k;
    w.part = part;
    w.collectives = {collective(op, dense, GroupRole::dp), collective(op, routed, GroupRole::edp)};
    w.couples = true;
    return w;
  };
  if (zero != 3 && spec.software.grad_reduce == spec::GradReduce::after_backward) {
    // One reduction per model chunk of the rank, in turn, once its whole backward is done.
    const CollectiveOp op = zero == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
    for (const auto& ss : plan.device_stages[r]) {
      const HeldParams h = stage_params(plan, cost, ss.stage);
      out.push_back(
          {dp_work(StepOpKind::dp_grads, zero == 0 ? "all-reduce grads" : "reduce-scatter grads",
                   op, h.dense * bytes_per_element(pr.grads),
                   h.routed * bytes_per_element(pr.grads)),
           TailWork::After::backward,
           ss.stage,
           {}});
    }
  } else if (zero != 3) {
    const double limit = r > 0 ? 0.0
                         : spec.software.grad_bucket_params > 0.0
                             ? spec.software.grad_bucket_params
                             : std::max(40e6, 1e6 * plan.replicas());
    const CollectiveOp op = zero == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
    for (const auto& ss : plan.device_stages[r])
      for (const GradBucket& b : grad_buckets(plan, cost, ss.stage, limit))
        out.push_back(
            {dp_work(StepOpKind::dp_grads, zero == 0 ? "all-reduce grads" : "reduce-scatter grads",
                     op, b.params.dense * bytes_per_element(pr.grads),
                     b.params.routed * bytes_per_element(pr.grads)),
             TailWork::After::stage_backward, ss.stage,
             limit > 0.0 ? b.layers : std::vector<int>{}});
  }
  // Optimizer: memory-bound, every local state read and written once.
  Work opt;
  opt.kind = StepOpKind::optimizer;
  opt.part = "optimizer step";
  hw::Kernel step;
  step.set_op("optimizer step");
  step.precision = spec::Precision::fp32;
  step.hbm_bytes = optimizer_step_bytes(spec, plan, cost, r);
  opt.kernels = {step};
  if (pr.gemm == spec::Precision::fp8) {
    // The updated weights' FP8 copies for the next step, and their transposes (dgrad reads Wᵀ).
    // The FP8 GEMMs' weights the rank holds, read in the parameter precision (after ZeRO's
    // gather), written as two FP8 copies.
    double fp8 = 0.0;
    for (const auto& ss : plan.device_stages[r])
      for (int li : stage_layer_indices(plan, ss.stage))
        for (const OpCost& op : layer_of(cost, li).ops)
          if (op.cls == OpClass::gemm && op.precision == spec::Precision::fp8)
            fp8 += op_local_params(op, plan.tp, plan.ep);
    hw::Kernel cast;
    cast.set_op("fp8 weights");
    cast.role = hw::KernelRole::cast_transpose;
    cast.pattern = spec::MemoryPattern::cast_transpose;
    cast.hbm_bytes = fp8 * (bytes_per_element(pr.params) + 2.0);
    opt.kernels.push_back(cast);
  }
  out.push_back({std::move(opt), TailWork::After::everything, -1, {}});
  if (zero == 1 || zero == 2)
    for (const auto& ss : plan.device_stages[r]) {
      const HeldParams h = stage_params(plan, cost, ss.stage);
      out.push_back(
          {dp_work(StepOpKind::dp_params, "all-gather params", CollectiveOp::all_gather,
                   h.dense * bytes_per_element(pr.params), h.routed * bytes_per_element(pr.params)),
           TailWork::After::optimizer,
           ss.stage,
           {}});
    }
  return out;
}

namespace {

std::atomic<long long> g_programs{0};

}  // namespace

StepProgram build_program(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                          const ModelCost& cost) {
  ++g_programs;
  return ProgramBuilder(spec, plan, cost).build();
}

long long programs_built() {
  return g_programs.load();
}

}  // namespace stepsim::workload
