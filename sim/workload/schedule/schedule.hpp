// Pipeline schedules, one file each, in one registry.
//
// A ScheduleDef is everything the rest of stepsim knows of a schedule: its word in scenarios and
// reports, how many stages it cuts the model into and how it lays them over the pipeline devices,
// what it requires of pp, the micro-batch count m and the virtual stages v, the instruction lists
// it issues (pipeline_schedule.hpp), and the micro-batches of activations a device holds at its
// peak (for memory). registry.cpp lists them; a Schedule names one by its word.
// Adding a schedule: its file defining a ScheduleDef, its line in registry.cpp, and its test.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/spec/parallel.hpp"
#include "sim/workload/pipeline_schedule.hpp"

namespace stepsim::workload {

// What a layout lacks for a schedule: the scenario key to blame, the message and a hint.
struct ScheduleIssue {
  std::string key, message, hint;
};

// A stage a pipeline device runs, and the share of the micro-batches it runs it for.
struct StageShare {
  int stage = 0;
  double share = 1.0;
};

// The defaults of a definition: a device runs stage d alone, for every micro-batch, and the
// schedule asks nothing beyond the common rules.
int stages_pp(int pp, int v);
int device_of_stage(const PipelineProgram& p, int stage, int mb);
std::vector<StageShare> one_stage(int d, int pp, int v);
std::optional<ScheduleIssue> no_issue(int pp, long long m, int v);

struct ScheduleDef {
  std::string_view word;
  // Stages of the model for pp devices and v virtual stages.
  int (*stages)(int pp, int v) = stages_pp;
  // The device running `stage` for micro-batch `mb`, in a program of p.devices and p.micro_batches.
  int (*device_of)(const PipelineProgram& p, int stage, int mb) = device_of_stage;
  // The stages device d runs (pp devices, v virtual stages).
  std::vector<StageShare> (*device_stages)(int d, int pp, int v) = one_stage;
  // What (pp, m, v) lack for this schedule, beyond the common rules (pp >= 2, v only where the
  // schedule uses it), or nothing.
  std::optional<ScheduleIssue> (*check)(int pp, long long m, int v) = no_issue;
  // Fills p.per_device (p.devices, p.stages, p.micro_batches set); preconditions checked.
  void (*build)(PipelineProgram& p, int v) = nullptr;
  // Micro-batches of activations device d holds at its peak.
  double (*peak_in_flight)(double pp, double m, double v, int d) = nullptr;
  // A device's idle time in the balanced ideal schedule (no communication), in micro-batches of
  // its work, with the forward, the input gradient and the weight gradient a third each (dgrad and
  // wgrad GEMMs each do the forward's FLOPs): F = W = 1/3, the full backward B = 2/3. The
  // published bubbles (tests/exec/bubble_oracle_test.cpp) in those units; the layout search
  // ranks layouts with it (plan/planner.hpp).
  double (*bubble)(double pp, double m, double v) = nullptr;
  bool uses_virtual_stages = false;
};

// The definition of a registered schedule (an internal error for a word the layout did not
// check: make_plan refuses unknown words at the scenario's key).
const ScheduleDef& schedule_def(const spec::Schedule& s);
const ScheduleDef* find_schedule(std::string_view word);  // nullptr: not registered
const std::vector<const ScheduleDef*>& all_schedules();
// The schedules' words, in registry order (for messages).
std::vector<std::string> schedule_words();
std::string_view to_string(const spec::Schedule& s);
// The registered schedule of that word, or at that place in the registry (internal errors when
// there is none: user input goes through make_plan).
spec::Schedule schedule_named(std::string_view word);
spec::Schedule schedule_at(std::size_t index);

// "<word> needs <what>micro-batches >= 2*pp", blamed on training.global_batch (DualPipe,
// DualPipeV).
ScheduleIssue too_few_micro_batches(std::string_view word, std::string_view what, int pp,
                                    long long m);
PipeInstr task(PipeOp op, int stage, int mb);
// 1F1B on every device; with `split`, B and W apart and device d keeps up to d weight gradients
// pending (ZB1P).
void build_one_f_one_b(PipelineProgram& p, bool split);

}  // namespace stepsim::workload
