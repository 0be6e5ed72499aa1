#include "sim/engine/check.hpp"
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

extern const ScheduleDef kNoSchedule, kGpipe, kOneFOneB, kInterleaved, kZb1p, kDualPipe, kDualPipeV;

namespace {

// "none" first (the default Schedule); then in the order users see them listed.
const std::vector<const ScheduleDef*> kRegistry{&kNoSchedule, &kGpipe,    &kOneFOneB, &kInterleaved,
                                                &kZb1p,       &kDualPipe, &kDualPipeV};

}  // namespace

const std::vector<const ScheduleDef*>& all_schedules() {
  return kRegistry;
}

const ScheduleDef* find_schedule(std::string_view word) {
  for (const ScheduleDef* d : kRegistry)
    if (d->word == word) return d;
  return nullptr;
}

const ScheduleDef& schedule_def(const spec::Schedule& s) {
  const ScheduleDef* d = find_schedule(s.word());
  STEPSIM_CHECK(d, "a schedule word the layout did not check against the registry");
  return *d;
}

spec::Schedule schedule_named(std::string_view word) {
  STEPSIM_CHECK(find_schedule(word), "no registered schedule of that word");
  return spec::Schedule(std::string(word));
}

spec::Schedule schedule_at(std::size_t index) {
  return spec::Schedule(std::string(kRegistry.at(index)->word));
}

std::vector<std::string> schedule_words() {
  std::vector<std::string> out;
  for (const ScheduleDef* d : kRegistry) out.emplace_back(d->word);
  return out;
}

std::string_view to_string(const spec::Schedule& s) {
  return s.word();
}

int stages_pp(int pp, int) {
  return pp;
}

int device_of_stage(const PipelineProgram& p, int stage, int) {
  return stage % p.devices;
}

std::vector<StageShare> one_stage(int d, int, int) {
  return {{d, 1.0}};
}

std::optional<ScheduleIssue> no_issue(int, long long, int) {
  return std::nullopt;
}

ScheduleIssue too_few_micro_batches(std::string_view word, std::string_view what, int pp,
                                    long long m) {
  return {
      "training.global_batch",
      std::string(word) + " needs " + std::string(what) +
          "micro-batches >= 2*pp = " + std::to_string(2LL * pp) + ", got " + std::to_string(m),
      "raise global_batch or lower micro_batch (micro-batches per pipeline = global_batch / (dp * "
      "micro_batch))"};
}

PipeInstr task(PipeOp op, int stage, int mb) {
  return {op, {stage, mb}, {}};
}

}  // namespace stepsim::workload
