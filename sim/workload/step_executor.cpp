#include "sim/workload/step_executor.hpp"

#include <algorithm>

#include "sim/engine/check.hpp"
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
    active_.resize(g.devices);
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
          stuck.push_back("device " + std::to_string(d) + ": " + g_.name(op) + " (" +
                          std::string(to_string(g_.ops[op].kind)) + ")");
        }
    engine::require_finished(stats, stuck);
    tl_.events = stats.events;
    return std::move(tl_);
  }

  void on_event(engine::Simulator& sim, std::uint64_t tag) override {
    const int id = static_cast<int>(tag);
    const StepOp& op = g_.ops[id];
    if (shares(id)) leave(op.device, id);
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
    if (shares(id))
      join(d, id);
    else
      sim_.after(g_.ops[id].duration, this, static_cast<std::uint64_t>(id));
  }

  // Bandwidth sharing between a device's concurrent communication ops.
  struct Active {
    int op;
    double left = 1.0;   // fraction of the op still to move
    double speed = 1.0;  // x: fraction of its own (alone) speed
    Time since;          // when `left` was last brought up to date
    engine::EventId end;
  };

  bool shares(int id) const {
    const StepOp& op = g_.ops[id];
    return is_communication(op.kind) && op.duration > Time() &&
           (op.ib_bytes > 0.0 || op.nvlink_bytes > 0.0) &&
           (g_.nvlink_capacity > 0.0 || g_.nic_capacity > 0.0);
  }

  void progress(std::vector<Active>& act) {
    for (Active& a : act) {
      a.left = std::max(0.0, a.left - a.speed * (sim_.now() - a.since).seconds() /
                                          g_.ops[a.op].duration.seconds());
      a.since = sim_.now();
    }
  }

  void join(int d, int id) {
    auto& act = active_[d];
    progress(act);
    act.push_back({id, 1.0, 1.0, sim_.now(),
                   sim_.after(g_.ops[id].duration, this, static_cast<std::uint64_t>(id))});
    if (act.size() > 1) share(act);
  }

  void leave(int d, int id) {
    auto& act = active_[d];
    progress(act);
    act.erase(std::find_if(act.begin(), act.end(), [&](const Active& a) { return a.op == id; }));
    if (!act.empty()) share(act);
  }

  // Progressive filling: raise every unfixed op's x together until a resource is full (fixing
  // the ops on it) or x reaches 1.
  void share(std::vector<Active>& act) {
    const std::size_t n = act.size();
    std::vector<std::array<double, 2>> demand(n);
    std::array<double, 2> cap{g_.nvlink_capacity, g_.nic_capacity};
    for (std::size_t i = 0; i < n; ++i) {
      const StepOp& op = g_.ops[act[i].op];
      const double t = op.duration.seconds();
      demand[i] = {op.nvlink_bytes / t, op.ib_bytes / t};
      for (int r = 0; r < 2; ++r) cap[r] = std::max(cap[r], demand[i][r]);  // alone, never slowed
    }
    std::vector<double> x(n, 1.0);
    std::vector<bool> fixed(n, false);
    std::array<double, 2> used{0.0, 0.0};
    for (std::size_t unfixed = n; unfixed > 0;) {
      double level = 1.0;
      int bind = -1;
      for (int r = 0; r < 2; ++r) {
        double want = 0.0;
        for (std::size_t i = 0; i < n; ++i)
          if (!fixed[i]) want += demand[i][r];
        if (want > 0.0 && (cap[r] - used[r]) / want < level) {
          level = (cap[r] - used[r]) / want;
          bind = r;
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (fixed[i] || (bind >= 0 && demand[i][bind] <= 0.0)) continue;
        x[i] = level;
        fixed[i] = true;
        --unfixed;
        for (int r = 0; r < 2; ++r) used[r] += level * demand[i][r];
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      STEPSIM_CHECK(x[i] > 0.0, "a communication op without bandwidth");
      if (x[i] == act[i].speed) continue;  // its end stays where it is
      act[i].speed = x[i];
      sim_.cancel(act[i].end);
      const double rest = act[i].left * g_.ops[act[i].op].duration.seconds() / x[i];
      act[i].end =
          sim_.after(Time::from_seconds(rest), this, static_cast<std::uint64_t>(act[i].op));
    }
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
  std::vector<std::vector<Active>> active_;  // per device
};

}  // namespace

StepTimeline execute_step(const StepGraph& graph, const engine::RunControl* control) {
  return Runner(graph, control).run();
}

}  // namespace stepsim::workload
