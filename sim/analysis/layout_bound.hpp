// The roofline bound of a layout without its step program, for layout searches (stepsim plan)
// that evaluate many thousands of layouts: the same fold as roofline.hpp (work_fold.hpp), over
// cached pieces instead of a built program.
//
// A stage's chain is its layers' chains one after another (layer_chains.hpp), so a stage's work
// is the sum of its layers' works, and a pipeline rank's is
//     Σ_stages  n(rank, stage) · (F(stage) + X(stage))  +  its pipeline sends  +  its tail,
// where n(rank, stage) counts the micro-batches of that stage the schedule gives the rank
// (PipelineProgram::device_of over every micro-batch), X is the backward with its weight
// gradient (a split B + W costs the same kernels), and a send goes wherever the schedule puts
// the neighbour stage of the same micro-batch. Per-layer works depend on the training shape,
// tp, ep, sequence parallelism, ZeRO-3, the communication SMs and the groups' shapes, and are
// cached on exactly those; a rank's tail (its gradient reduction, optimizer step and parameter
// gather) on the layers' parameters, the groups, the ZeRO stage and the rank's stages, not on the
// micro-batch or recomputation; the send counts on (schedule, pp, v, m). The result equals the
// roofline's bound up to rounding (tests/analysis/layout_bound_test.cpp); what it leaves out is
// what the roofline leaves out, plus the per-collective labels (the search reports its winners
// through the roofline itself).
//
// One LayoutBounds serves one thread: its caches are not shared. They keep copies, never
// references, of what they were made from, and assume one model and cluster (a search's): their
// keys name those by name.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/analysis/work_fold.hpp"
#include "sim/hw/kernel_model.hpp"
#include "sim/spec/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/model_cost.hpp"

namespace stepsim::analysis {

struct LayoutBound {
  double bound_s = 0.0;  // the slowest pipeline rank's
  int device = 0;        // that rank
  ResourceTimes times;   // its time per resource
  double flops_per_gpu = 0.0;
  double comm_to_compute = 0.0;  // max(NVLink, IB time) / compute time, the slowest rank's
  workload::MemoryBreakdown memory;
  workload::ParallelPlan plan;
};

class LayoutBounds {
 public:
  LayoutBounds();
  ~LayoutBounds();
  LayoutBounds(const LayoutBounds&) = delete;
  LayoutBounds& operator=(const LayoutBounds&) = delete;

  // Validates the layout (engine::UserError, as roofline() does) and bounds it.
  LayoutBound bound(const spec::ScenarioSpec& spec);

 private:
  struct LayerWorks;  // per layer index: its forward and backward-with-weight work
  struct Pipeline {
    std::vector<std::vector<std::pair<int, double>>> runs;   // per rank: (stage, micro-batches)
    std::vector<std::vector<std::pair<int, double>>> sends;  // per rank: (to rank, sends)
  };
  const workload::ModelCost& model_cost(const spec::ScenarioSpec& spec);
  const Pipeline& pipeline(const spec::ScenarioSpec& spec, const workload::ParallelPlan& plan);

  std::map<std::string, std::unique_ptr<workload::ModelCost>> costs_;
  struct Kernels;  // a copy of the device and its kernel model (which refers to it)
  std::map<std::string, std::unique_ptr<Kernels>> kernels_;
  std::map<std::string, std::unique_ptr<LayerWorks>> layers_;
  std::map<std::string, DeviceWork> tails_;  // a rank's tail, by its parameters, groups, stages
  std::map<std::string, Pipeline> pipelines_;
};

}  // namespace stepsim::analysis
