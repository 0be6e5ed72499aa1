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

const ScheduleDef& schedule_def(spec::Schedule s) {
  STEPSIM_CHECK(s.index() < kRegistry.size(), "schedule missing from the registry");
  return *kRegistry[s.index()];
}

spec::Schedule schedule_named(std::string_view word) {
  const auto s = parse_schedule(word);
  STEPSIM_CHECK(s.has_value(), "no registered schedule of that word");
  return *s;
}

std::vector<std::string> schedule_words() {
  std::vector<std::string> out;
  for (const ScheduleDef* d : kRegistry) out.emplace_back(d->word);
  return out;
}

std::string_view to_string(spec::Schedule s) {
  return schedule_def(s).word;
}

std::optional<spec::Schedule> parse_schedule(std::string_view s) {
  for (std::size_t i = 0; i < kRegistry.size(); ++i)
    if (kRegistry[i]->word == s) return spec::Schedule::at(i);
  return std::nullopt;
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
