#include "sim/workload/pipeline_executor.hpp"

#include <unordered_map>

#include "sim/engine/check.hpp"
#include "sim/engine/simulator.hpp"

namespace stepsim::workload {

using engine::Time;

namespace {

enum Kind : std::uint64_t { kF = 0, kB = 1, kW = 2 };
std::uint64_t key(Kind k, int stage, int mb) {
  return (static_cast<std::uint64_t>(k) << 56) | (static_cast<std::uint64_t>(stage) << 32) |
         static_cast<std::uint32_t>(mb);
}

class Executor final : public engine::EventHandler {
 public:
  Executor(const PipelineProgram& p, const PipelineCost& c) : p_(p), cost_(c), dev_(p.devices) {
    run_.busy.assign(p.devices, Time());
  }

  PipelineRun run() {
    for (int d = 0; d < p_.devices; ++d) advance(d);
    const auto stats = sim_.run();
    std::vector<std::string> stuck;
    for (int d = 0; d < p_.devices; ++d)
      if (dev_[d].pc < p_.per_device[d].size())
        stuck.push_back("device " + std::to_string(d) + ": " +
                        to_string(p_.per_device[d][dev_[d].pc]));
    engine::require_finished(stats, stuck);
    run_.events = stats.events;
    return std::move(run_);
  }

  // Event tags: device << 1 | 0 = its instruction finished; key index << 1 | 1 = a message arrived.
  void on_event(engine::Simulator&, std::uint64_t tag) override {
    if ((tag & 1) == 0) {
      finish(static_cast<int>(tag >> 1));
    } else {
      const Arrival a = arrivals_[tag >> 1];
      deliver(a.key, a.device);
    }
  }

 private:
  struct Device {
    std::size_t pc = 0;
    bool busy = false;
    bool advancing = false;             // guards re-entry through zero-delay messages
    std::vector<std::uint64_t> posted;  // receives posted, awaited by the next compute
    Time start;
  };
  struct Arrival {
    std::uint64_t key;
    int device;
  };

  // Marks an output available at `device`, waking it if it waits.
  void deliver(std::uint64_t k, int device) {
    available_[{k, device}] = true;
    advance(device);
  }

  struct PairHash {
    std::size_t operator()(const std::pair<std::uint64_t, int>& p) const {
      return std::hash<std::uint64_t>()(p.first * 1315423911u +
                                        static_cast<std::uint64_t>(p.second));
    }
  };

  bool has(std::uint64_t k, int device) const { return available_.count({k, device}) > 0; }

  void publish(Kind kind, int stage, int mb, int from) {
    int to_stage = kind == kF ? stage + 1 : stage - 1;
    if (to_stage < 0 || to_stage >= p_.stages) return;
    const int to = p_.device_of(to_stage, mb);
    const Time delay = cost_.send(from, to, kind == kF);
    const std::uint64_t k = key(kind, stage, mb);
    if (delay == Time()) {
      available_[{k, to}] = true;
      if (to != from) advance(to);
      return;
    }
    arrivals_.push_back({k, to});
    sim_.after(delay, this, (static_cast<std::uint64_t>(arrivals_.size() - 1) << 1) | 1);
  }

  // The cross-device inputs of a compute task, and its local prerequisites.
  bool inputs_ready(int d, PipeOp op, StageTask t) const {
    const bool backward = op == PipeOp::B || op == PipeOp::BW;
    if (op == PipeOp::F && t.stage > 0 && !p_.explicit_comm && !has(key(kF, t.stage - 1, t.mb), d))
      return false;
    if (backward) {
      if (!local_.count(key(kF, t.stage, t.mb))) return false;
      if (t.stage < p_.stages - 1 && !p_.explicit_comm && !has(key(kB, t.stage + 1, t.mb), d))
        return false;
    }
    if (op == PipeOp::W && !local_.count(key(kB, t.stage, t.mb))) return false;
    return true;
  }

  Time duration(const PipeInstr& i) const {
    switch (i.op) {
      case PipeOp::F:
        return cost_.forward(i.a.stage, i.a.mb);
      case PipeOp::B:
        return cost_.input_grad(i.a.stage, i.a.mb);
      case PipeOp::W:
        return cost_.weight_grad(i.a.stage, i.a.mb);
      case PipeOp::BW:
        return cost_.input_grad(i.a.stage, i.a.mb) + cost_.weight_grad(i.a.stage, i.a.mb);
      case PipeOp::FB:
        return cost_.overlapped(i.a, i.b);
      default:
        return Time();
    }
  }

  void advance(int d) {
    Device& dv = dev_[d];
    if (dv.advancing) return;
    dv.advancing = true;
    step(d);
    dv.advancing = false;
  }

  void step(int d) {
    Device& dv = dev_[d];
    const auto& prog = p_.per_device[d];
    while (!dv.busy && dv.pc < prog.size()) {
      const PipeInstr& i = prog[dv.pc];
      switch (i.op) {
        case PipeOp::send_f:
        case PipeOp::send_b:
          ++dv.pc;
          publish(i.op == PipeOp::send_f ? kF : kB, i.a.stage, i.a.mb, d);
          continue;
        case PipeOp::recv_f:
          dv.posted.push_back(key(kF, i.a.stage - 1, i.a.mb));
          ++dv.pc;
          continue;
        case PipeOp::recv_b:
          dv.posted.push_back(key(kB, i.a.stage + 1, i.a.mb));
          ++dv.pc;
          continue;
        default:
          break;
      }
      for (std::uint64_t k : dv.posted)
        if (!has(k, d)) return;
      if (i.op == PipeOp::FB) {
        if (!inputs_ready(d, PipeOp::F, i.a) || !inputs_ready(d, PipeOp::BW, i.b)) return;
      } else if (!inputs_ready(d, i.op, i.a)) {
        return;
      }
      dv.posted.clear();
      dv.busy = true;
      dv.start = sim_.now();
      sim_.after(duration(i), this, static_cast<std::uint64_t>(d) << 1);
    }
  }

  void complete(const StageTask& t, PipeOp op, int d) {
    switch (op) {
      case PipeOp::F:
        local_[key(kF, t.stage, t.mb)] = true;
        if (!p_.explicit_comm) publish(kF, t.stage, t.mb, d);
        break;
      case PipeOp::B:
      case PipeOp::BW:
        local_[key(kB, t.stage, t.mb)] = true;
        if (op == PipeOp::BW) local_[key(kW, t.stage, t.mb)] = true;
        if (!p_.explicit_comm) publish(kB, t.stage, t.mb, d);
        break;
      case PipeOp::W:
        local_[key(kW, t.stage, t.mb)] = true;
        break;
      default:
        break;
    }
  }

  void finish(int d) {
    Device& dv = dev_[d];
    const PipeInstr& i = p_.per_device[d][dv.pc];
    run_.timeline.push_back({d, i, dv.start, sim_.now()});
    run_.busy[d] += sim_.now() - dv.start;
    run_.step = std::max(run_.step, sim_.now());
    if (i.op == PipeOp::FB) {
      complete(i.a, PipeOp::F, d);
      complete(i.b, PipeOp::BW, d);
    } else {
      complete(i.a, i.op, d);
    }
    dv.busy = false;
    ++dv.pc;
    advance(d);
  }

  const PipelineProgram& p_;
  const PipelineCost& cost_;
  engine::Simulator sim_;
  std::vector<Device> dev_;
  std::unordered_map<std::pair<std::uint64_t, int>, bool, PairHash> available_;
  std::unordered_map<std::uint64_t, bool> local_;  // keys are unique per device by construction
  std::vector<Arrival> arrivals_;
  PipelineRun run_;
};

}  // namespace

PipelineRun execute_pipeline(const PipelineProgram& program, const PipelineCost& cost) {
  Executor e(program, cost);
  return e.run();
}

}  // namespace stepsim::workload
