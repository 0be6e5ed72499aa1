// build_program: the step program (program.hpp) of a scenario, its schedule's instruction lists,
// each chunk with its chain (made once per stage and pass: layer_chains.hpp) and its pipeline
// send, and each rank's data-parallel tail.
#pragma once

#include <vector>

#include "sim/workload/memory.hpp"
#include "sim/workload/program.hpp"

namespace stepsim::workload {

class ModelCost;

StepProgram build_program(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                          const ModelCost& cost);
// How many programs this process has built (a test counts them: one per simulated step).
long long programs_built();

// The data-parallel end of pipeline rank r: its gradients reduced per bucket (SoftwareSpec::
// grad_bucket_params: on pipeline rank 0, the stage's layers in backward order, grouped up to the
// bucket size; on later ranks one bucket per stage), each as soon as the last backward of its
// layers is done, on the data-parallel stream, overlapping the remaining backward; then the
// optimizer runs and ZeRO-1/2 gather the updated parameters.
// A stage's gradient buckets: its layers in backward order (last first), a new bucket once the
// current one holds `limit` parameters or more; one bucket when `limit` is 0.
struct GradBucket {
  std::vector<int> layers;
  HeldParams params;  // per GPU
};
std::vector<GradBucket> grad_buckets(const ParallelPlan& plan, const ModelCost& cost, int stage,
                                     double limit);

std::vector<TailWork> build_tail(const spec::ScenarioSpec& spec, const ParallelPlan& plan,
                                 const ModelCost& cost, int rank);

}  // namespace stepsim::workload
