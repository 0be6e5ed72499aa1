// The simulator loop: a clock and the event queue, passed explicitly (there is no global one).
//
// `run` pops events in (time, sequence) order, advances the clock to each and calls its handler,
// which may schedule or cancel more. It stops when the queue drains, when the event budget is
// spent, or at a time limit. A drained queue with work still outstanding is a deadlock: the
// caller names what is stuck and `require_finished` turns that into a SimulationError.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/engine/event_queue.hpp"

namespace stepsim::engine {

// A simulation that cannot complete: deadlock or budget exhausted. Not a bug, not a file error.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The user stopped the run: it exceeded its wall-clock budget or was interrupted by a signal
// (SIGINT, SIGTERM, SIGHUP: `signal`, 0 when not known).
class Stopped : public std::runtime_error {
 public:
  enum class Why { wall_limit, interrupted };
  Stopped(Why why, const std::string& what, int signal = 0)
      : std::runtime_error(what), why_(why), signal_(signal) {}
  Why why() const { return why_; }
  int signal() const { return signal_; }
  // The exit status: 3 for the wall-clock budget, 128 + the signal's number (SIGINT's when not
  // known) for an interruption.
  int status() const { return why_ == Why::wall_limit ? 3 : 128 + (signal_ ? signal_ : 2); }

 private:
  Why why_;
  int signal_;
};

// Wall-clock budget and interruption flag of a whole command, passed down to every run loop.
struct RunControl {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  double budget_s = 0.0;  // for the message
  const std::atomic<bool>* interrupted = nullptr;
  const std::atomic<int>* signal = nullptr;  // which signal set `interrupted`, 0 until one did
  void check() const;                        // throws Stopped
};

// The whole command's control, for the long loops of layers that take none as an argument
// (reading and checking files: a YAML document's events, a kernel table's rows): the command sets
// it once (cli's run_control, or the interrupt flag alone at start-up) and those loops call
// check_command() every few thousand steps. Before any is set the check does nothing.
void set_command_control(const RunControl& control);
void check_command();

struct RunLimits {
  std::uint64_t max_events = UINT64_MAX;
  Time until = Time::max();             // events after this time stay pending
  const RunControl* control = nullptr;  // checked every few thousand events
};

enum class RunOutcome { drained, event_budget, time_limit };

struct RunStats {
  std::uint64_t events = 0;  // events executed by this call
  Time end;                  // clock when it returned
  RunOutcome outcome = RunOutcome::drained;
};

class Simulator {
 public:
  Time now() const { return now_; }
  // Schedules `handler->on_event(sim, tag)` at absolute time `at` (>= now).
  EventId at(Time at, EventHandler* handler, std::uint64_t tag = 0);
  EventId after(Time delay, EventHandler* handler, std::uint64_t tag = 0) {
    return at(now_ + delay, handler, tag);
  }
  bool cancel(EventId id) { return queue_.cancel(id); }
  std::size_t pending() const { return queue_.live(); }
  EventQueue& queue() { return queue_; }

  RunStats run(const RunLimits& limits = {});
  // Checks the running run()'s control now (throws Stopped), for a handler whose one event does
  // much work (a re-solve of a hundred thousand flows): run() checks only every 4,096 events.
  // Nothing outside run() or without a control.
  void check_control() const {
    if (control_) control_->check();
  }

 private:
  EventQueue queue_;
  Time now_;
  const RunControl* control_ = nullptr;  // the running run()'s
};

// Throws SimulationError when the run ran out of budget, or drained while `stuck` (names of
// work items still waiting) is non-empty.
void require_finished(const RunStats& stats, const std::vector<std::string>& stuck);

}  // namespace stepsim::engine
