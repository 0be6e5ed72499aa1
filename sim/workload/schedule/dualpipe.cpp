// DualPipe (DeepSeek, arXiv 2412.19437; deepseek-ai/DualPipe): half the micro-batches enter at
// device 0, half at device p-1; device d holds stages d and p-1-d (2x parameters); the eight
// steps of its schedule (warm-up forwards; F0F1; B1W1F1; the main F&B loop; B1 F&B; B1B0 with the
// second half zero-bubble; W B0; W), with explicit sends and receives as the reference batches
// them. Bubble (p/2-1)(F&B+B-3W); p+1 micro-batches in flight per device. Needs p even, m even and
// m >= 2p.
#include <algorithm>
#include <deque>

#include "sim/engine/check.hpp"
#include "sim/workload/schedule/dualpipe_tail.hpp"
#include "sim/workload/schedule/schedule.hpp"

namespace stepsim::workload {

namespace {

using Prog = std::vector<PipeInstr>;

// DualPipe, one device. Phase 0 is the direction entering at device 0 for the first half of the
// devices and the other one for the second half; counters follow the reference implementation.
class DualPipeDevice {
 public:
  DualPipeDevice(const PipelineProgram& p, int d, Prog& out)
      : p_(p),
        d_(d),
        out_(out),
        second_(d >= p.devices / 2),
        half_rank_(std::min(d, p.devices - 1 - d)),
        middle_(d == p.devices / 2 - 1 || d == p.devices / 2) {}

  void build() {
    const int half = p_.devices / 2, h = half_rank_;
    for (int i = 0; i < (half - h - 1) * 2; ++i) forward(0);
    recv_f(0);
    for (int i = 0; i < h + 1; ++i) {
      forward(0, false, middle_);
      recv_f(0);
      forward(1, true, !middle_ || i < h);
      if (!middle_) send_f(0);
    }
    for (int i = 0; i < half - h - 1; ++i) {
      backward(1, true);
      recv_f(1);
      weight();
      forward(1, false);
    }
    const int main_steps = p_.micro_batches / 2 - p_.devices + h + 1;
    for (int i = 0; i < main_steps; ++i) {
      if (i == 0 && middle_) {  // not overlapped, to shorten the bubble (as DualPipe does)
        forward(0, false, false);
        send_f(1);
        backward(1, false, true, false);
        send_f(0);
        send_b(1);
      } else {
        forward_backward(0, 1, i != 0);
      }
      forward_backward(1, 0, true);
    }
    dualpipe_tail(
        half - h - 1, h, [&](int ph, bool zb) { backward(ph, zb); },
        [&] { forward_backward(1, 0, true); }, [&] { weight(); });
    STEPSIM_CHECK(weights_.empty(), "DualPipe left weight gradients pending");
  }

 private:
  int dir(int phase) const { return phase ^ (second_ ? 1 : 0); }
  int stage(int direction) const { return direction == 0 ? d_ : p_.devices - 1 - d_; }
  int mb(int direction, int k) const { return direction * (p_.micro_batches / 2) + k; }
  bool first(int direction) const { return stage(direction) == 0; }
  bool last(int direction) const { return stage(direction) == p_.devices - 1; }

  void emit(PipeOp op, int direction, int k) {
    out_.push_back(task(op, stage(direction), mb(direction, k)));
  }
  void recv_f(int ph) {
    if (!first(dir(ph))) emit(PipeOp::recv_f, dir(ph), recv_f_[ph]++);
  }
  void send_f(int ph) {
    if (!last(dir(ph))) emit(PipeOp::send_f, dir(ph), send_f_[ph]++);
  }
  void recv_b(int ph) {
    if (!last(dir(ph))) emit(PipeOp::recv_b, dir(ph), recv_b_[ph]++);
  }
  void send_b(int ph) {
    if (!first(dir(ph))) emit(PipeOp::send_b, dir(ph), send_b_[ph]++);
  }

  void forward(int ph, bool recv = true, bool send = true) {
    if (recv) recv_f(ph);
    emit(PipeOp::F, dir(ph), f_[ph]++);
    if (send) send_f(ph);
  }
  void backward(int ph, bool zero_bubble, bool recv = true, bool send = true) {
    if (recv) recv_b(ph);
    const int k = b_[ph]++;
    emit(zero_bubble ? PipeOp::B : PipeOp::BW, dir(ph), k);
    if (zero_bubble) weights_.push_back({stage(dir(ph)), mb(dir(ph), k)});
    if (send) send_b(ph);
  }
  void forward_backward(int ph0, int ph1, bool recv0) {
    if (recv0) recv_f(ph0);
    recv_b(ph1);
    const int k0 = f_[ph0]++, k1 = b_[ph1]++;
    out_.push_back(
        {PipeOp::FB, {stage(dir(ph0)), mb(dir(ph0), k0)}, {stage(dir(ph1)), mb(dir(ph1), k1)}});
    send_f(ph0);
    send_b(ph1);
  }
  void weight() {
    STEPSIM_CHECK(!weights_.empty(), "DualPipe weight step without a pending gradient");
    out_.push_back({PipeOp::W, weights_.front(), {}});
    weights_.pop_front();
  }

  const PipelineProgram& p_;
  int d_;
  Prog& out_;
  bool second_;
  int half_rank_;
  bool middle_;
  int f_[2] = {0, 0}, b_[2] = {0, 0};
  int send_f_[2] = {0, 0}, send_b_[2] = {0, 0}, recv_f_[2] = {0, 0}, recv_b_[2] = {0, 0};
  std::deque<StageTask> weights_;
};

void build(PipelineProgram& p, int) {
  STEPSIM_CHECK(p.devices % 2 == 0 && p.micro_batches % 2 == 0 && p.micro_batches >= 2 * p.devices,
                "DualPipe preconditions");
  p.explicit_comm = true;
  for (int d = 0; d < p.devices; ++d) DualPipeDevice(p, d, p.per_device[d]).build();
}

std::optional<ScheduleIssue> check(int pp, long long m, int) {
  if (pp % 2 != 0)
    return ScheduleIssue{"parallelism.pp", "DualPipe needs an even pp, got " + std::to_string(pp),
                         "DualPipe pairs stage i with stage pp-1-i on one device; use an even pp"};
  if (m % 2 != 0 || m < 2LL * pp)
    return too_few_micro_batches("dualpipe", "an even number of ", pp, m);
  return std::nullopt;
}

}  // namespace

extern const ScheduleDef kDualPipe{
    .word = "dualpipe",
    .device_of = [](const PipelineProgram& p, int stage,
                    int mb) { return mb < p.micro_batches / 2 ? stage : p.devices - 1 - stage; },
    .device_stages =
        [](int d, int pp, int) {
          return std::vector<StageShare>{{d, 0.5}, {pp - 1 - d, 0.5}};
        },
    .check = check,
    .build = build,
    // DualPipe README: PP+1 per device
    .peak_in_flight = [](double pp, double, double, int) { return pp + 1.0; },
    // (p/2-1)(F&B + B - 3W), B the full backward: (1 + 2/3 - 1) per step.
    .bubble = [](double pp, double, double) { return (pp / 2.0 - 1.0) * 2.0 / 3.0; },
};

}  // namespace stepsim::workload
