// DualPipeV, the "cut-in-half" DualPipe (Sea AI Lab; deepseek-ai/DualPipe README): one V of 2p
// stages over p devices, device d holding stage d (going down) and stage 2p-1-d (coming back);
// DualPipe's steps with the device index in place of the half-rank. Bubble (p/2-1)(F&B+B-3W) in
// DualPipe's terms; 2p+1 chunks in flight. Needs m >= 2p.
#include <deque>

#include "sim/engine/check.hpp"
#include "sim/workload/schedule/dualpipe_tail.hpp"
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

namespace {

using Prog = std::vector<PipeInstr>;

// DualPipeV (the "cut-in-half" DualPipe): one V of 2n stages over n devices, device r holding stage
// r (going down) and stage 2n-1-r (coming back). Its steps are DualPipe's with the device index
// in place of the half-rank and the last device, where the V turns, in place of the middle ones.
void dualpipev(PipelineProgram& p) {
  const int n = p.devices, m = p.micro_batches;
  for (int r = 0; r < n; ++r) {
    Prog& prog = p.per_device[r];
    const int s0 = r, s1 = 2 * n - 1 - r;
    int f[2] = {0, 0}, b[2] = {0, 0};
    std::deque<StageTask> weights;
    auto stage = [&](int c) { return c == 0 ? s0 : s1; };
    auto fwd = [&](int c) { prog.push_back(task(PipeOp::F, stage(c), f[c]++)); };
    auto bwd = [&](int c, bool zero_bubble) {
      const int j = b[c]++;
      prog.push_back(task(zero_bubble ? PipeOp::B : PipeOp::BW, stage(c), j));
      if (zero_bubble) weights.push_back({stage(c), j});
    };
    auto weight = [&] {
      if (weights.empty()) return;
      prog.push_back({PipeOp::W, weights.front(), {}});
      weights.pop_front();
    };
    auto pair = [&](int cf, int cb) {
      prog.push_back({PipeOp::FB, {stage(cf), f[cf]++}, {stage(cb), b[cb]++}});
    };
    for (int i = 0; i < (n - r - 1) * 2; ++i) fwd(0);
    for (int i = 0; i < r + 1; ++i) {
      fwd(0);
      fwd(1);
    }
    for (int i = 0; i < n - r - 1; ++i) {
      bwd(1, true);
      weight();
      fwd(1);
    }
    for (int i = 0; i < m - 2 * n + r + 1; ++i) {
      if (i == 0 && r == n - 1) {  // where the V turns: not overlapped
        fwd(0);
        bwd(1, false);
      } else {
        pair(0, 1);
      }
      pair(1, 0);
    }
    dualpipe_tail(
        n - r - 1, r, bwd, [&] { pair(1, 0); }, weight);
    STEPSIM_CHECK(weights.empty(), "DualPipeV left weight gradients pending");
  }
}

void build(PipelineProgram& p, int) {
  STEPSIM_CHECK(p.micro_batches >= 2 * p.devices, "DualPipeV preconditions");
  dualpipev(p);
}

std::optional<ScheduleIssue> check(int pp, long long m, int) {
  if (m < 2LL * pp) return too_few_micro_batches("dualpipev", "", pp, m);
  return std::nullopt;
}

}  // namespace

extern const ScheduleDef kDualPipeV{
    .word = "dualpipev",
    .stages = [](int pp, int) { return 2 * pp; },
    .device_of = [](const PipelineProgram& p, int stage,
                    int) { return stage < p.devices ? stage : 2 * p.devices - 1 - stage; },
    .device_stages =
        [](int d, int pp, int) {
          return std::vector<StageShare>{{d, 1.0}, {2 * pp - 1 - d, 1.0}};
        },
    .check = check,
    .build = build,
    // PP+1 with PP = 2·pp chunks
    .peak_in_flight = [](double pp, double, double, int) { return 2.0 * pp + 1.0; },
    // As DualPipe's (deepseek-ai/DualPipe README), (p/2-1)(F&B + B - 3W).
    .bubble = [](double pp, double, double) { return (pp / 2.0 - 1.0) * 2.0 / 3.0; },
};

}  // namespace stepsim::workload
