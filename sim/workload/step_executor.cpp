#include "sim/workload/step_executor.hpp"

#include "sim/engine/simulator.hpp"

namespace stepsim::workload {

using engine::Time;

namespace {

class Runner final : public engine::EventHandler {
 public:
  Runner(const StepGraph& g, const engine::RunControl* control) : g_(g), control_(control) {
    const std::size_t n = g.ops.size();
    tl_.start.assign(n, Time());
    tl_.end.assign(n, Time());
    waiting_.assign(n, 0);
    done_.assign(n, false);
    offsets_.assign(n + 1, 0);
    for (const StepOp& op : g.ops)
      for (int d : op.deps) ++offsets_[d + 1];
    for (std::size_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
    dependents_.resize(offsets_[n]);
    std::vector<std::size_t> fill(offsets_.begin(), offsets_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      waiting_[i] = static_cast<int>(g.ops[i].deps.size());
      for (int d : g.ops[i].deps) dependents_[fill[d]++] = static_cast<int>(i);
    }
    head_.assign(g.devices, {});
    busy_.assign(g.devices, {});
  }

  StepTimeline run() {
    for (int d = 0; d < g_.devices; ++d)
      for (int s = 0; s < kStreams; ++s) try_start(d, s);
    engine::RunLimits limits;
    limits.control = control_;
    const auto stats = sim_.run(limits);
    std::vector<std::string> stuck;
    for (int d = 0; d < g_.devices; ++d)
      for (int s = 0; s < kStreams; ++s)
        if (head_[d][s] < g_.streams[d][s].size()) {
          const int op = g_.streams[d][s][head_[d][s]];
          stuck.push_back("device " + std::to_string(d) + ": " + g_.name(op) + " (" + std::string(to_string(g_.ops[op].kind)) + ")");
        }
    engine::require_finished(stats, stuck);
    tl_.events = stats.events;
    return std::move(tl_);
  }

  void on_event(engine::Simulator& sim, std::uint64_t tag) override {
    const int id = static_cast<int>(tag);
    const StepOp& op = g_.ops[id];
    tl_.end[id] = sim.now();
    tl_.step = std::max(tl_.step, sim.now());
    done_[id] = true;
    const int s = static_cast<int>(op.stream);
    busy_[op.device][s] = false;
    ++head_[op.device][s];
    for (std::size_t k = offsets_[id]; k < offsets_[id + 1]; ++k) {
      const StepOp& dep = g_.ops[dependents_[k]];
      if (--waiting_[dependents_[k]] == 0) try_start(dep.device, static_cast<int>(dep.stream));
    }
    try_start(op.device, s);
  }

 private:
  void try_start(int d, int s) {
    if (busy_[d][s]) return;
    const auto& stream = g_.streams[d][s];
    if (head_[d][s] >= stream.size()) return;
    const int id = stream[head_[d][s]];
    if (waiting_[id] > 0) return;
    busy_[d][s] = true;
    tl_.start[id] = sim_.now();
    sim_.after(g_.ops[id].duration, this, static_cast<std::uint64_t>(id));
  }

  const StepGraph& g_;
  const engine::RunControl* control_;
  engine::Simulator sim_;
  StepTimeline tl_;
  std::vector<int> waiting_;
  std::vector<bool> done_;
  std::vector<std::size_t> offsets_;
  std::vector<int> dependents_;
  std::vector<std::array<std::size_t, kStreams>> head_;
  std::vector<std::array<bool, kStreams>> busy_;
};

}  // namespace

StepTimeline execute_step(const StepGraph& graph, const engine::RunControl* control) {
  return Runner(graph, control).run();
}

}  // namespace stepsim::workload
