// The work of one pipeline chunk (a stage's forward, backward or weight gradient for one
// micro-batch) as a chain of items: runs of kernels and collectives in dependency order, timed.
//
// Per layer, forward: attention (with the MoE router) -> [tensor-parallel all-reduce] ->
// [expert dispatch -> experts -> combine] or the dense MLP [-> all-reduce]. Backward runs the
// mirror image (the combine's transpose sends gradients to the experts in the dispatch precision,
// the dispatch's transpose returns them in the combine precision), with recomputed ops' forward
// FLOPs added (under full recomputation also the forward's tensor-parallel all-reduces and, for
// an MoE layer, its dispatch and combine, ahead of the layer's backward), and the weight gradient
// either fused (backward with weight) or as a separate W kernel per layer (ops with weights only)
// when the schedule splits it. ZeRO-3 gathers each layer (dense over dp, experts over edp) before
// its forward and again before its backward, at most zero3_prefetch layers ahead, and
// reduce-scatters its gradients after, every micro-batch, on the communication stream.
// Kernel time: each op of the cost model is one kernel (kernel_time.hpp), with the SMs left by
// `comm_sms` (held for the whole step when set: DeepSeek partitions them statically), times the
// device's straggler slowdown. Without sequence parallelism the norms run on every token on every
// tensor-parallel rank; the other elementwise ops act on tensor-parallel shards.
// Communication time and load: the collective timer (collective_timer.hpp), on the groups of the
// device it has selected.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/hw/kernel_model.hpp"
#include "sim/workload/collective_timer.hpp"
#include "sim/workload/kernel_time.hpp"
#include "sim/workload/model_cost.hpp"
#include "sim/workload/step_graph.hpp"

namespace stepsim::workload {

// One item of a chunk: a run of kernels or one collective, in chain order.
struct Item {
  StreamKind stream = StreamKind::compute;
  StepOpKind kind = StepOpKind::kernel;
  engine::Time duration;
  double flops = 0.0, bytes = 0.0;
  std::string part;
  int layer = -3;
  bool after_prev = true;   // depends on the previous item of the chain
  bool blocks_next = true;  // the next item depends on it (and later items through it)
  bool feeds_next = false;  // the next item that follows its predecessor also depends on it
  bool ends_layer = false;  // the last compute item of its layer in the chain
  bool couples = false;     // a collective over data-parallel groups: couples the classes
  double ib_bytes = 0.0, nvlink_bytes = 0.0;
  int load = -1;
  int wait_layers_back = -1;  // ZeRO-3 gather: depends on the end of the layer this many back
};
using Chain = std::vector<Item>;

class LayerChains {
 public:
  LayerChains(const ScenarioSpec& spec, const ParallelPlan& plan, const ModelCost& cost,
              CollectiveTimer& timer);

  // `slowdown`: the device's straggler factor on every kernel.
  Chain forward(int stage, double slowdown);
  Chain backward(int stage, double slowdown, bool with_weight);
  Chain weight(int stage, double slowdown);

  const hw::KernelModel& kernel_model() const { return kernels_; }
  // Time of a collective on the selected device's groups; its link bytes and load follow.
  engine::Time comm(net::CollectiveOp op, double bytes, const std::vector<int>& group);
  void take_link(double& ib, double& nvlink, int& load);

 private:
  engine::Time kernels(const std::vector<const OpCost*>& ops, Pass pass, int layer_index,
                       double slowdown, double& flops) const;
  double payload(hw::Precision p) const;
  static std::vector<std::pair<std::string, std::vector<const OpCost*>>> segments(
      const LayerCost& l);
  Item kernel_item(const std::string& part, const std::vector<const OpCost*>& ops, Pass pass,
                   int layer, double slowdown) const;
  Item comm_item(StepOpKind kind, const std::string& part, engine::Time t, double bytes, int layer);
  Item tp_item(int layer);
  // ZeRO-3 traffic of one layer: non-expert parameters over dp, expert parameters over edp.
  Item zero3_item(StepOpKind kind, net::CollectiveOp op, const std::string& part,
                  const LayerCost& l, double bytes_per);
  // The gather runs ahead of the layer (on the comm stream) once the layer zero3_prefetch + 1
  // before it has finished; the layer's first kernel waits for it.
  void zero3_gather(Chain& c, const LayerCost& l);
  static void mark_layer_ends(Chain& c);

  const ScenarioSpec& spec_;
  const ParallelPlan& plan_;
  const ModelCost& cost_;
  hw::RooflineKernelModel kernels_;  // the time of every kernel of the step
  const PrecisionPolicy& pr_;
  CollectiveTimer& timer_;
  double tokens_ = 0.0, sm_share_ = 1.0;
};

}  // namespace stepsim::workload
