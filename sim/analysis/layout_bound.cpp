#include "sim/analysis/layout_bound.hpp"

#include <algorithm>

#include "sim/workload/checks.hpp"
#include "sim/workload/layer_chains.hpp"
#include "sim/workload/pipeline_schedule.hpp"
#include "sim/workload/step_program.hpp"

namespace stepsim::analysis {

using spec::ScenarioSpec;
using workload::ParallelPlan;

struct LayoutBounds::LayerWorks {
  struct Pair {
    DeviceWork forward, backward;
  };
  std::map<int, Pair> by_layer;
  std::vector<int> representative;  // per transformer layer: the layer whose works it shares
};

struct LayoutBounds::Kernels {
  explicit Kernels(const spec::DeviceSpec& d) : device(d), model(device) {}
  spec::DeviceSpec device;
  hw::TableKernelModel model;
};

namespace {

void put(std::string& key, long long v) {
  key += std::to_string(v);
  key += ',';
}

// What a layer's parameters depend on: the model and the precisions.
std::string params_key(const ScenarioSpec& spec) {
  const auto& p = spec.training.precision;
  std::string k = spec.model.name;
  k += '|';
  for (spec::Precision x : {p.gemm, p.attention, p.head, p.router, p.activations, p.dispatch,
                            p.combine, p.params, p.grads, p.master, p.optimizer})
    put(k, static_cast<int>(x));
  put(k, p.mlp_act_input ? static_cast<int>(*p.mlp_act_input) : -1);
  return k;
}

// Everything of the training that a ModelCost reads (not the global batch): the parameters' key
// and the shape of a micro-batch's work.
std::string training_key(const ScenarioSpec& spec) {
  const auto& t = spec.training;
  std::string k = params_key(spec);
  k += '|';
  put(k, t.seq_len);
  put(k, t.micro_batch);
  put(k, t.causal);
  put(k, static_cast<int>(t.recompute.mode));
  for (const auto& op : t.recompute.ops) k += op + ",";
  return k;
}

void put_shape(std::string& key, net::GroupShape g) {
  put(key, g.size);
  put(key, g.gpus_per_node);
}

}  // namespace

LayoutBounds::LayoutBounds() = default;
LayoutBounds::~LayoutBounds() = default;

const workload::ModelCost& LayoutBounds::model_cost(const ScenarioSpec& spec) {
  auto& slot = costs_[training_key(spec)];
  if (!slot) slot = std::make_unique<workload::ModelCost>(spec.model, spec.training);
  return *slot;
}

const LayoutBounds::Pipeline& LayoutBounds::pipeline(const ScenarioSpec& spec,
                                                     const ParallelPlan& plan) {
  std::string key;
  key += spec.parallel.schedule.word() + ",";
  put(key, plan.pp);
  put(key, spec.parallel.virtual_stages);
  put(key, plan.micro_batches);
  auto [it, fresh] = pipelines_.try_emplace(key);
  Pipeline& p = it->second;
  if (!fresh) return p;
  workload::PipelineProgram prog;  // only its shape: device_of needs no instruction lists
  prog.schedule = spec.parallel.schedule;
  prog.devices = plan.pp;
  prog.stages = plan.stages;
  prog.micro_batches = static_cast<int>(plan.micro_batches);
  std::vector<std::map<int, double>> runs(plan.pp), sends(plan.pp);
  for (int s = 0; s < plan.stages; ++s)
    for (int j = 0; j < prog.micro_batches; ++j) {
      const int d = prog.device_of(s, j);
      runs[d][s] += 1.0;
      if (s + 1 < plan.stages)
        if (const int to = prog.device_of(s + 1, j); to != d) sends[d][to] += 1.0;
      if (s > 0)
        if (const int to = prog.device_of(s - 1, j); to != d) sends[d][to] += 1.0;
    }
  for (int d = 0; d < plan.pp; ++d) {
    p.runs.emplace_back(runs[d].begin(), runs[d].end());
    p.sends.emplace_back(sends[d].begin(), sends[d].end());
  }
  return p;
}

LayoutBound LayoutBounds::bound(const ScenarioSpec& spec) {
  workload::check_precisions(spec);
  LayoutBound r;
  r.plan = workload::make_plan(spec);
  const ParallelPlan& plan = r.plan;
  const workload::ModelCost& cost = model_cost(spec);
  const auto& cl = spec.cluster;
  auto& kernels = kernels_[cl.name + "|" + cl.device.name];
  if (!kernels) kernels = std::make_unique<Kernels>(cl.device);
  const hw::KernelModel& km = kernels->model;
  const double sm_share = cl.device.compute_sm_share(spec.parallel.comm_sms);
  const double send_bytes = plan.tokens_per_micro_batch / plan.tp * spec.model.hidden *
                            spec::bytes_per_element(spec.training.precision.activations);
  const WorkFold fold(cl, plan, km, sm_share, send_bytes, false);

  // The groups and collectives a layer's and a tail's works depend on, besides the training.
  std::string groups = '|' + cl.name + '|';
  put(groups, plan.tp);
  put(groups, plan.ep);
  put(groups, plan.cp);
  put(groups, static_cast<int>(plan.cp_algorithm));
  put(groups, plan.cp_a2a);
  put(groups, spec.parallel.sequence_parallel);
  put(groups, spec.parallel.zero == 3);
  put(groups, spec.parallel.comm_sms);
  put(groups, plan.gpus_per_node);
  for (int role = 0; role <= static_cast<int>(workload::GroupRole::cp_ring); ++role)
    put_shape(groups, plan.group(static_cast<workload::GroupRole>(role)));
  for (const auto& c : spec.collectives) {
    groups += c.algorithm + "," + c.protocol + ",";
    put(groups, c.channels);
    put(groups, c.chunks);
  }
  const std::string key = training_key(spec) + groups;
  const std::string tail_prefix = params_key(spec) + groups;
  auto& lw = layers_[key];
  if (!lw) lw = std::make_unique<LayerWorks>();
  // Transformer layers of one kind (dense, MoE) have the same ops, so one of each stands for
  // all; the MTP blocks, embedding and heads stand for themselves.
  if (lw->representative.empty()) {
    const auto& layers = cost.layers();
    int dense = -1, moe = -1;
    for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
      int& first = layers[i].moe ? moe : dense;
      if (first < 0 || i >= plan.main_layers) first = i;
      lw->representative.push_back(i < plan.main_layers ? first : i);
    }
  }
  std::unique_ptr<workload::LayerChains> chains;
  auto layer = [&](int li) -> const LayerWorks::Pair& {
    if (li >= 0) li = lw->representative[li];
    auto it = lw->by_layer.find(li);
    if (it != lw->by_layer.end()) return it->second;
    // Made for this layout (it refers to its spec and plan), on the first miss.
    if (!chains) chains = std::make_unique<workload::LayerChains>(spec, plan, cost);
    LayerWorks::Pair p;
    for (const workload::Work& w : chains->forward_layers({li})) fold.add(p.forward, w, 1.0);
    for (const workload::Work& w : chains->backward_layers({li}, true))
      fold.add(p.backward, w, 1.0);
    return lw->by_layer.emplace(li, std::move(p)).first->second;
  };

  const Pipeline& pipe = pipeline(spec, plan);
  for (int d = 0; d < plan.pp; ++d) {
    DeviceWork w;
    for (const auto& [stage, n] : pipe.runs[d])
      for (int li : workload::stage_layer_indices(plan, stage)) {
        const LayerWorks::Pair& p = layer(li);
        w.merge(p.forward, n);
        w.merge(p.backward, n);
      }
    int kinds = 0;
    for (const auto& [to, n] : pipe.sends[d]) kinds |= fold.same_node(d, to) ? 1 : 2;
    for (const auto& [to, n] : pipe.sends[d]) fold.send(w, d, to, n, kinds);
    // The tail (gradient reduction, optimizer step, parameter gather) depends on the layers'
    // parameters, the groups, the ZeRO stage and the layers of the rank's stages, not on the
    // micro-batch's shape: layouts that differ only in micro-batch or recomputation share it.
    std::string tail_key = tail_prefix;
    put(tail_key, spec.parallel.zero);
    put(tail_key, plan.replicas());
    put(tail_key, plan.edp);
    put(tail_key, d == 0);
    for (const auto& ss : plan.device_stages[d]) {
      put(tail_key, plan.stage_first_layer[ss.stage]);
      put(tail_key, plan.stage_layers[ss.stage]);
      put(tail_key, (ss.stage == 0) + 2 * (ss.stage == plan.stages - 1));
    }
    auto [tail, fresh] = tails_.try_emplace(tail_key);
    if (fresh)
      for (const workload::TailWork& t : workload::build_tail(spec, plan, cost, d))
        fold.add(tail->second, t.work, 1.0);
    w.merge(tail->second, 1.0);
    const ResourceTimes times = resource_times(w, cl, km.hbm_bandwidth());
    if (d > 0 && times.bound() <= r.bound_s) continue;
    r.device = d;
    r.bound_s = times.bound();
    r.times = times;
    r.flops_per_gpu = 0.0;
    for (double f : w.flops) r.flops_per_gpu += f;
    r.comm_to_compute = std::max(times.t[2], times.t[3]) / times.t[0];
  }
  r.memory = workload::memory_per_gpu(spec, plan, cost);
  return r;
}

}  // namespace stepsim::analysis
