#include "sim/workload/pipeline_schedule.hpp"

#include <algorithm>
#include <deque>

#include "sim/engine/check.hpp"

namespace stepsim::workload {

int PipelineProgram::device_of(int stage, int mb) const {
  if (schedule == Schedule::dualpipe) return mb < micro_batches / 2 ? stage : devices - 1 - stage;
  if (schedule == Schedule::dualpipev) return stage < devices ? stage : 2 * devices - 1 - stage;
  return stage % devices;
}

std::string to_string(const PipeInstr& i) {
  static constexpr const char* kNames[] = {"F",      "B",      "W",      "BW",    "F&B",
                                           "send F", "send B", "recv F", "recv B"};
  std::string s = kNames[static_cast<int>(i.op)];
  s += " s" + std::to_string(i.a.stage) + " mb" + std::to_string(i.a.mb);
  if (i.op == PipeOp::FB) s += " + s" + std::to_string(i.b.stage) + " mb" + std::to_string(i.b.mb);
  return s;
}

namespace {

using Prog = std::vector<PipeInstr>;

PipeInstr task(PipeOp op, int stage, int mb) {
  return {op, {stage, mb}, {}};
}

void gpipe(PipelineProgram& p) {
  for (int d = 0; d < p.devices; ++d) {
    for (int j = 0; j < p.micro_batches; ++j) p.per_device[d].push_back(task(PipeOp::F, d, j));
    for (int j = 0; j < p.micro_batches; ++j) p.per_device[d].push_back(task(PipeOp::BW, d, j));
  }
}

// 1F1B; with `split`, B and W separate and device d keeps up to d weight gradients pending.
void one_f_one_b(PipelineProgram& p, bool split) {
  const int m = p.micro_batches;
  for (int d = 0; d < p.devices; ++d) {
    Prog& prog = p.per_device[d];
    std::deque<int> pending;
    auto backward = [&](int j, bool drain) {
      if (!split) {
        prog.push_back(task(PipeOp::BW, d, j));
        return;
      }
      prog.push_back(task(PipeOp::B, d, j));
      pending.push_back(j);
      const std::size_t keep = drain ? 0 : static_cast<std::size_t>(d);
      while (pending.size() > keep) {
        prog.push_back(task(PipeOp::W, d, pending.front()));
        pending.pop_front();
        if (drain) break;
      }
    };
    const int warm = std::min(p.devices - d - 1, m);
    int f = 0, b = 0;
    for (; f < warm; ++f) prog.push_back(task(PipeOp::F, d, f));
    for (; f < m; ++f, ++b) {
      prog.push_back(task(PipeOp::F, d, f));
      backward(b, false);
    }
    for (; b < m; ++b) backward(b, true);
    for (; !pending.empty(); pending.pop_front())
      prog.push_back(task(PipeOp::W, d, pending.front()));
  }
}

void interleaved(PipelineProgram& p, int v) {
  const int pp = p.devices, total = p.micro_batches * v;
  // The k-th forward (backward) of a device: chunk and micro-batch, in groups of pp micro-batches.
  auto fwd = [&](int k) { return std::pair{(k % (pp * v)) / pp, k / (pp * v) * pp + k % pp}; };
  auto bwd = [&](int k) {
    return std::pair{v - 1 - (k % (pp * v)) / pp, k / (pp * v) * pp + k % pp};
  };
  for (int d = 0; d < pp; ++d) {
    Prog& prog = p.per_device[d];
    const int warm = std::min((pp - d - 1) * 2 + (v - 1) * pp, total);
    int f = 0, b = 0;
    auto push = [&](PipeOp op, std::pair<int, int> cj) {
      prog.push_back(task(op, cj.first * pp + d, cj.second));
    };
    for (; f < warm; ++f) push(PipeOp::F, fwd(f));
    for (; f < total; ++f, ++b) {
      push(PipeOp::F, fwd(f));
      push(PipeOp::BW, bwd(b));
    }
    for (; b < total; ++b) push(PipeOp::BW, bwd(b));
  }
}

// The cool-down shared by DualPipe and DualPipeV (the reference's last three steps), for a device
// `near` steps from its edge and `far` = half - near - 1 from the middle: full backwards of phase 1
// paired with phase 1's overlapped F&B, then backwards of both phases switching to zero-bubble
// (B now, W deferred) half-way, then the deferred weight gradients filling the tail.
template <class Backward, class Pair, class Weight>
void dualpipe_tail(int far, int near, Backward backward, Pair pair, Weight weight) {
  for (int i = 0; i < far; ++i) {
    backward(1, false);
    pair();
  }
  bool zb = false;
  for (int i = 0; i < near + 1; ++i) {
    if (i == (near + 1) / 2 && near % 2 == 1) zb = true;
    backward(1, zb);
    if (i == (near + 1) / 2 && near % 2 == 0) zb = true;
    backward(0, zb);
  }
  for (int i = 0; i < far; ++i) {
    weight();
    backward(0, true);
  }
  for (int i = 0; i < near + 1; ++i) weight();
}

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

}  // namespace

PipelineProgram build_pipeline(Schedule schedule, int devices, int micro_batches,
                               int virtual_stages) {
  PipelineProgram p;
  p.schedule = schedule;
  p.devices = devices;
  p.micro_batches = micro_batches;
  p.stages = schedule == Schedule::interleaved ? devices * virtual_stages
             : schedule == Schedule::dualpipev ? 2 * devices
                                               : devices;
  p.per_device.resize(devices);
  switch (schedule) {
    case Schedule::none:
      one_f_one_b(p, false);
      break;  // one device: F, B per micro-batch
    case Schedule::gpipe:
      gpipe(p);
      break;
    case Schedule::one_f_one_b:
      one_f_one_b(p, false);
      break;
    case Schedule::zb1p:
      one_f_one_b(p, true);
      break;
    case Schedule::interleaved:
      interleaved(p, virtual_stages);
      break;
    case Schedule::dualpipe:
      STEPSIM_CHECK(devices % 2 == 0 && micro_batches % 2 == 0 && micro_batches >= 2 * devices,
                    "DualPipe preconditions");
      p.explicit_comm = true;
      for (int d = 0; d < devices; ++d) DualPipeDevice(p, d, p.per_device[d]).build();
      break;
    case Schedule::dualpipev:
      STEPSIM_CHECK(micro_batches >= 2 * devices, "DualPipeV preconditions");
      dualpipev(p);
      break;
  }
  return p;
}

}  // namespace stepsim::workload
