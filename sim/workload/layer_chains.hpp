// The work of one pipeline chunk (a stage's forward, backward or weight gradient for one
// micro-batch) as a chain of works (step_program.hpp): runs of kernels and collectives in
// dependency order, untimed.
//
// Per layer, forward: attention (with the MoE router and the permutation into expert order) ->
// [tensor-parallel all-reduce] -> [expert dispatch -> experts -> combine -> un-permutation and
// residual add] or the dense MLP [-> all-reduce]. Backward runs the mirror image (the combine's
// transpose sends gradients to the experts in the dispatch precision, the dispatch's transpose
// returns them in the combine precision), with recomputed ops' forward kernels ahead of each
// part's backward (under full recomputation the layer's whole forward, its tensor-parallel
// all-reduces and, for an MoE layer, its dispatch and combine included, ahead of the layer's
// backward), and the weight gradient
// either fused (backward with weight) or as a separate W kernel per layer (ops with weights only)
// when the schedule splits it. ZeRO-3's gathers and reduce-scatters are placed in the chain
// afterwards, every micro-batch, as the scenario's implementation runs them
// (zero3_placement.hpp).
// Kernels: what the framework launches for each op (op_kernels.hpp); in backward, the recomputed
// ops' forward kernels first, then the ops' backward kernels in reverse order. Without sequence
// parallelism the norms and residual adds run on every token on every tensor-parallel rank; the
// other elementwise ops act on tensor-parallel shards.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/workload/collective_options.hpp"
#include "sim/workload/context_parallel.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/op_kernels.hpp"
#include "sim/workload/program.hpp"
#include "sim/workload/zero3_placement.hpp"

namespace stepsim::workload {

class LayerChains {
 public:
  LayerChains(const spec::ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost);
  // The busiest GPU's routed token copies over the mean that the chains are built for.
  double expert_load() const { return ctx_.expert_load; }

  Chain forward(int stage) const;
  Chain backward(int stage, bool with_weight) const;
  Chain weight(int stage) const;

  // The same for a list of layer indices in forward order (stage_layer_indices), e.g. one layer:
  // a stage's chain is its layers' chains one after another, so their works add up to the
  // stage's (the layout search's bound sums cached per-layer works: analysis/layout_bound.hpp).
  Chain forward_layers(const std::vector<int>& layers) const;
  Chain backward_layers(std::vector<int> layers, bool with_weight) const;
  Chain weight_layers(std::vector<int> layers) const;

 private:
  Work kernel_work(const std::string& part, const std::vector<const OpCost*>& ops, Phase pass,
                   int layer) const;
  double payload(spec::Precision p) const;
  static std::vector<std::pair<std::string, std::vector<const OpCost*>>> segments(
      const LayerCost& l);
  static Work comm_work(StepOpKind kind, const std::string& part,
                        std::vector<CollectiveWork> collectives, int layer);
  Work tp_work(int layer) const;
  Work ep_work(StepOpKind kind, const std::string& part, spec::Precision p, int layer) const;
  // The forward kernels of `ops`, marked as a rerun ahead of the backward when `recompute`.
  Work forward_work(const std::string& part, const std::vector<const OpCost*>& ops, int li,
                    bool recompute) const;
  // A layer's forward: its kernels and collectives in order (`recompute`: rerun in backward).
  void forward_layer(Chain& c, int li, bool recompute) const;
  // The attention segment's works (layer li, ops in layer order): one run of kernels, or under
  // context parallelism the ops before the core, the core's works (context_parallel.hpp) and the
  // ops after it; in backward the mirror image.
  void attention_forward(Chain& c, const std::vector<const OpCost*>& ops, int li,
                         bool recompute) const;
  void attention_backward(Chain& c, const std::vector<const OpCost*>& ops, Phase pass,
                          int li) const;

  const spec::ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const ModelCost& cost_;
  const spec::PrecisionPolicy& pr_;
  KernelContext ctx_;
  CpLayout cp_;
  mutable CollectiveMaker collective_;
  Zero3Placement zero3_;
};

}  // namespace stepsim::workload
