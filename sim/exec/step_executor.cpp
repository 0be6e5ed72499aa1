#include "sim/exec/step_executor.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "sim/engine/maxmin.hpp"
#include "sim/engine/simulator.hpp"

namespace stepsim::exec {

using workload::is_communication;
using workload::kStreams;

using engine::Time;

namespace {

class Runner final : public engine::EventHandler {
 public:
  Runner(const StepGraph& g, const engine::RunControl* control) : g_(g), control_(control) {
    const std::size_t n = g.ops.size();
    tl_.start.assign(n, Time());
    tl_.end.assign(n, Time());
    waiting_.assign(n, 0);
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
    slot_of_.assign(n, -1);
    couple_count_.assign(g.couples.size(), 0);
    tl_.couple_last.assign(g.couples.size(), -1);
    for (double c : g.link_capacity) system_.add_constraint(c);
    hbm_base_ = static_cast<int>(g.link_capacity.size());
    if (g.hbm_capacity > 0.0)
      for (int d = 0; d < g.devices; ++d) system_.add_constraint(g.hbm_capacity);
    if (g.sms > 0) held_.assign(g.devices, 0);
    if (g.sms > 0 || g.comm_contention()) computing_.assign(g.devices, -1);
    if (g.comm_contention()) comm_on_.assign(g.devices, {});
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

  void on_event(engine::Simulator&, std::uint64_t tag) override {
    if (tag >= g_.ops.size()) return resident(static_cast<int>(tag - g_.ops.size()));
    const int id = static_cast<int>(tag);
    if (shares(id)) {
      // The end of a piece of its run: on to the next, or gone from the fabric.
      Active& a = act_[slot_of_[id]];
      if (is_communication(g_.ops[id].kind))
        tl_.pieces.push_back({id, a.piece, a.piece_start, sim_.now()});
      if (a.piece + 1 < static_cast<int>(shape(id).size())) return next_piece(id);
      leave(id);
    }
    const int c = g_.ops[id].couple;
    if (c < 0) return complete(id);
    // A coupled collective ends when its last copy has.
    if (++couple_count_[c] < static_cast<int>(g_.couples[c].size())) return;
    couple_count_[c] = 0;
    for (int copy : g_.couples[c]) complete(copy);
  }

 private:
  void complete(int id) {
    const StepOp& op = g_.ops[id];
    if (hold_sms(id, -1)) resolve();
    tl_.end[id] = sim_.now();
    tl_.step = std::max(tl_.step, sim_.now());
    const int s = static_cast<int>(op.stream);
    busy_[op.device][s] = false;
    ++head_[op.device][s];
    for (std::size_t k = offsets_[id]; k < offsets_[id + 1]; ++k) {
      const StepOp& dep = g_.ops[dependents_[k]];
      if (--waiting_[dependents_[k]] == 0) try_start(dep.device, static_cast<int>(dep.stream));
    }
    try_start(op.device, s);
  }

  void try_start(int d, int s) {
    if (busy_[d][s]) return;
    const auto& stream = g_.streams[d][s];
    if (head_[d][s] >= stream.size()) return;
    const int id = stream[head_[d][s]];
    if (waiting_[id] > 0) return;
    busy_[d][s] = true;
    const int c = g_.ops[id].couple;
    if (c < 0) return begin(id);
    // A coupled collective starts when every copy is ready (and its stream free).
    if (++couple_count_[c] < static_cast<int>(g_.couples[c].size())) return;
    couple_count_[c] = 0;
    tl_.couple_last[c] = d;
    for (int copy : g_.couples[c]) begin(copy);
  }

  void begin(int id) {
    tl_.start[id] = sim_.now();
    if (const double w = sm_wait(id); w > 0.0) {
      sim_.after(Time::from_seconds(w), this, g_.ops.size() + id);
      return;
    }
    resident(id);
  }

  // The op's kernels are on their SMs: it runs.
  void resident(int id) {
    const bool held = hold_sms(id, 1);
    if (shares(id)) return join(id);
    if (held) resolve();
    sim_.after(g_.ops[id].duration, this, static_cast<std::uint64_t>(id));
  }

  // ---- SMs ----------------------------------------------------------------------------------

  // A communication kernel needing more SMs than compute leaves free waits for the running
  // persistent kernel of the compute op in flight to end (its CTAs retire only then): the
  // expected residual of the kernel it lands in, StepOp::persistent_wait_s.
  double sm_wait(int id) const {
    const StepOp& op = g_.ops[id];
    if (g_.sms <= 0 || op.demand.sms <= 0) return 0.0;
    double w = 0.0;
    for (int d : gpus_of(op))
      if (d >= 0 && computing_[d] >= 0 && held_[d] + op.demand.sms > g_.reserved_sms(d))
        w = std::max(w, g_.ops[act_[computing_[d]].op].demand.persistent_wait_s);
    return w;
  }

  // A communication op starting (sign 1) or ending (-1) takes or gives back its SMs on its GPU
  // (and its peer's); the compute op in flight there gets a new bound. Whether any changed.
  bool hold_sms(int id, int sign) {
    const StepOp& op = g_.ops[id];
    if (g_.sms <= 0 || op.demand.sms <= 0) return false;
    for (int d : gpus_of(op)) {
      if (d < 0) continue;
      held_[d] += sign * op.demand.sms;
      if (computing_[d] >= 0) {
        const Active& a = act_[computing_[d]];
        system_.set_bound(a.var, sm_bound(a.op));
      }
    }
    return true;
  }

  // The GPUs a communication op runs its kernels on: its own, and its peer's for a pipeline send
  // (-1: none).
  static std::array<int, 2> gpus_of(const StepOp& op) {
    return {op.device, op.kind == workload::StepOpKind::pp_send ? op.peer : -1};
  }

  // ---- communication beside compute --------------------------------------------------------

  // 1 / f: a communication op's speed bound beside the compute ops in flight on its GPUs, f the
  // factor of the compute-bound share c = (T_f + T_p) / T of the compute op's time and the
  // memory-bound rest, f = c·f_compute + (1 − c)·f_memory (the larger over its GPUs).
  double contention_bound(int id) const {
    double f = 1.0;
    for (int d : gpus_of(g_.ops[id])) {
      if (d < 0 || computing_[d] < 0) continue;
      const StepOp& c = g_.ops[act_[computing_[d]].op];
      const double t = c.duration.seconds();
      const double bound =
          t > 0.0 ? std::min(1.0, (c.demand.sm_scaled_s + c.demand.sm_persistent_s) / t) : 0.0;
      f = std::max(
          f, bound * g_.comm_beside_compute_bound + (1.0 - bound) * g_.comm_beside_memory_bound);
    }
    return 1.0 / f;
  }

  // The compute op in flight on GPU d changed: its communication ops get new bounds.
  void contend(int d) {
    if (comm_on_.empty()) return;
    for (int slot : comm_on_[d]) system_.set_bound(act_[slot].var, contention_bound(act_[slot].op));
  }

  // b = T / (T + T_f·(s0/s − 1) + T_p·(⌈s0/s⌉ − 1)): the compute op's speed with s SMs free of
  // communication, its kernels timed on s0.
  double sm_bound(int id) const {
    const StepOp& op = g_.ops[id];
    const int reserved = g_.reserved_sms(op.device);
    const int s0 = g_.sms - reserved;
    const int free = std::max(1, g_.sms - std::max(reserved, held_[op.device]));
    if (free >= s0) return 1.0;
    const double t = op.duration.seconds();
    const double waves = std::ceil(static_cast<double>(s0) / free);
    return t / (t + op.demand.sm_scaled_s * (static_cast<double>(s0) / free - 1.0) +
                op.demand.sm_persistent_s * (waves - 1.0));
  }

  // ---- the live fabric ----------------------------------------------------------------------

  struct Active {
    int op = -1;
    double left = 1.0;           // fraction of the op still to move
    double speed = 1.0;          // x: fraction of its own speed
    double seconds = 0.0;        // T: its time at its own speed
    int piece = 0;               // the piece of its shape it is in
    double piece_seconds = 0.0;  // that piece's share of T
    Time since;                  // when `left` was last brought up to date
    engine::EventId end;         // the end of its piece
    Time begun;                  // when it joined
    Time piece_start;            // when it entered its piece
    bool slowed = false;         // whether it ever ran below its own speed
    int var = -1;                // its variable in the system
  };

  bool shares(int id) const {
    const StepOp& op = g_.ops[id];
    if (op.duration == Time() || op.load < 0) return false;
    return is_communication(op.kind) ? !g_.link_capacity.empty() : g_.hbm_capacity > 0.0;
  }

  const std::vector<net::LoadPiece>& shape(int id) const { return g_.shapes[g_.ops[id].load]; }
  // The bytes per link of the piece the op in `slot` is in.
  const std::vector<net::LinkLoad>& profile(int slot) const {
    static const std::vector<net::LinkLoad> kNone;
    const int p = shape(act_[slot].op)[act_[slot].piece].profile;
    return p < 0 ? kNone : g_.loads[p];
  }
  // Own-time fraction left at the end of the piece the op in `slot` is in.
  double left_after_piece(int slot) const {
    return 1.0 - shape(act_[slot].op)[act_[slot].piece].until;
  }
  void enter_piece(int slot, int piece) {
    Active& a = act_[slot];
    const auto& pieces = shape(a.op);
    a.piece = piece;
    a.piece_seconds =
        (pieces[piece].until - (piece > 0 ? pieces[piece - 1].until : 0.0)) * a.seconds;
  }

  // a_cl: what the op in `slot` asks of a link at its own speed, bytes/s, at most the link's
  // capacity (an op alone is never slowed; its time already accounts for its own traffic).
  double asks(const net::LinkLoad& l, double seconds) const {
    return std::min(l.bytes / seconds, g_.link_capacity[l.link]);
  }

  void join(int id) {
    int slot;
    if (free_.empty()) {
      slot = static_cast<int>(act_.size());
      act_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    Active& a = act_[slot];
    a = Active{};
    a.op = id;
    a.seconds = g_.ops[id].duration.seconds();
    a.since = a.begun = a.piece_start = sim_.now();
    const StepOp& op = g_.ops[id];
    const bool compute = !is_communication(op.kind);
    a.var = system_.add_variable(1.0, !compute     ? (comm_on_.empty() ? 1.0 : contention_bound(id))
                                      : g_.sms > 0 ? sm_bound(id)
                                                   : 1.0);
    if (compute && !computing_.empty()) {
      computing_[op.device] = slot;
      contend(op.device);
    }
    if (!compute && !comm_on_.empty())
      for (int d : gpus_of(op))
        if (d >= 0) comm_on_[d].push_back(slot);
    if (slot_of_var_.size() <= static_cast<std::size_t>(a.var)) slot_of_var_.resize(a.var + 1);
    slot_of_var_[a.var] = slot;
    enter_piece(slot, 0);
    a.end = sim_.at(unslowed_end(slot), this, static_cast<std::uint64_t>(id));
    slot_of_[id] = slot;
    attach(slot);
    resolve();
  }

  // The slot's current piece loads its links: one element a_cl per link.
  void attach(int slot) {
    for (const net::LinkLoad& l : profile(slot))
      system_.expand(act_[slot].var, l.link, asks(l, act_[slot].piece_seconds));
    // Its GPU's HBM, evenly over its whole run (at most the capacity, as for a link).
    const StepOp& op = g_.ops[act_[slot].op];
    if (g_.hbm_capacity > 0.0 && op.demand.hbm_bytes > 0.0)
      system_.expand(act_[slot].var, hbm_base_ + op.device,
                     std::min(op.demand.hbm_bytes / act_[slot].seconds, g_.hbm_capacity));
  }

  // The end of the slot's piece when the op has run at its own speed since it joined: counted
  // from its start, so that an op never slowed ends exactly its duration after it (the last
  // piece), however many pieces it has.
  Time unslowed_end(int slot) const {
    const Active& a = act_[slot];
    const auto& pieces = shape(a.op);
    if (a.piece + 1 == static_cast<int>(pieces.size())) return a.begun + g_.ops[a.op].duration;
    return a.begun + Time::from_seconds(pieces[a.piece].until * a.seconds);
  }

  // The op has moved its current piece: its next one takes its place on the fabric.
  void next_piece(int id) {
    const int slot = slot_of_[id];
    Active& a = act_[slot];
    system_.clear(a.var);
    a.left = left_after_piece(slot);
    a.since = a.piece_start = sim_.now();
    enter_piece(slot, a.piece + 1);
    attach(slot);
    a.end = a.slowed
                ? sim_.after(
                      Time::from_seconds((a.left - left_after_piece(slot)) * a.seconds / a.speed),
                      this, static_cast<std::uint64_t>(id))
                : sim_.at(std::max(sim_.now(), unslowed_end(slot)), this,
                          static_cast<std::uint64_t>(id));
    resolve();
  }

  void leave(int id) {
    const int slot = slot_of_[id];
    const StepOp& op = g_.ops[id];
    if (!computing_.empty() && computing_[op.device] == slot) {
      computing_[op.device] = -1;
      contend(op.device);
    }
    if (is_communication(op.kind) && !comm_on_.empty())
      for (int d : gpus_of(op))
        if (d >= 0) std::erase(comm_on_[d], slot);
    system_.remove_variable(act_[slot].var);
    slot_of_[id] = -1;
    act_[slot].op = -1;
    free_.push_back(slot);
    resolve();
  }

  // Re-solves the system (the ops connected to what changed through links that can bind); an op
  // whose speed changed has its piece's end moved.
  void resolve() {
    for (const auto& c : system_.solve()) {
      const int slot = slot_of_var_[c.var];
      Active& a = act_[slot];
      const double x = system_.value(c.var);
      if (x == a.speed) continue;  // its end stays where it is (an op joining at full speed)
      a.left = std::max(left_after_piece(slot),
                        a.left - a.speed * (sim_.now() - a.since).seconds() / a.seconds);
      a.since = sim_.now();
      a.speed = x;
      a.slowed = true;
      sim_.cancel(a.end);
      const double to_go = std::max(0.0, a.left - left_after_piece(slot));
      a.end = sim_.after(Time::from_seconds(to_go * a.seconds / a.speed), this,
                         static_cast<std::uint64_t>(a.op));
    }
  }

  const StepGraph& g_;
  const engine::RunControl* control_;
  engine::Simulator sim_;
  StepTimeline tl_;
  std::vector<int> waiting_;
  std::vector<std::size_t> offsets_;
  std::vector<int> dependents_;
  std::vector<std::array<std::size_t, kStreams>> head_;
  std::vector<std::array<bool, kStreams>> busy_;
  std::vector<int> couple_count_;  // copies ready (before the start) or finished (after)
  std::vector<Active> act_;        // communication ops in flight on the fabric, by slot
  std::vector<int> free_, slot_of_, slot_of_var_;
  int hbm_base_ = 0;  // constraint of device d's HBM: hbm_base_ + d
  // Per device: the SMs its communication kernels in flight hold (when SMs are shared), and the
  // slot of its compute op in flight (-1: none; when SMs are shared or communication slowed).
  std::vector<int> held_, computing_;
  // Per device (when communication is slowed beside compute): the slots of the communication ops
  // in flight on its GPU.
  std::vector<std::vector<int>> comm_on_;
  // Constraint l: link class l of the graph; variable: an op in flight, x its speed (bound 1).
  engine::MaxMinSystem system_;
};

}  // namespace

StepTimeline execute_step(const StepGraph& graph, const engine::RunControl* control) {
  return Runner(graph, control).run();
}

}  // namespace stepsim::exec
