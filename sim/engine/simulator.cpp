#include "sim/engine/simulator.hpp"

#include "sim/engine/check.hpp"

namespace stepsim::engine {

EventId Simulator::at(Time t, EventHandler* handler, std::uint64_t tag) {
  STEPSIM_CHECK(t >= now_, "event scheduled in the past");
  STEPSIM_CHECK(handler != nullptr, "event without handler");
  return queue_.push(t, handler, tag);
}

RunStats Simulator::run(const RunLimits& limits) {
  // The control is the running call's only: a run() that throws (Stopped) leaves none behind.
  struct Running {
    const RunControl*& slot;
    ~Running() { slot = nullptr; }
  } running{control_};
  control_ = limits.control;
  RunStats stats;
  EventQueue::Fired f{};
  while (true) {
    if (stats.events >= limits.max_events) {
      stats.outcome = queue_.empty() ? RunOutcome::drained : RunOutcome::event_budget;
      break;
    }
    if (!queue_.pop_until(limits.until, f)) {
      stats.outcome = queue_.empty() ? RunOutcome::drained : RunOutcome::time_limit;
      break;
    }
    now_ = f.time;
    ++stats.events;
    if (limits.control && (stats.events & 4095) == 0) limits.control->check();
    f.handler->on_event(*this, f.tag);
  }
  if (stats.outcome == RunOutcome::time_limit && limits.until > now_) now_ = limits.until;
  stats.end = now_;
  return stats;
}

void RunControl::check() const {
  if (interrupted && interrupted->load(std::memory_order_relaxed))
    throw Stopped(Stopped::Why::interrupted, "interrupted; no output written",
                  signal ? signal->load() : 0);
  if (std::chrono::steady_clock::now() > deadline)
    throw Stopped(Stopped::Why::wall_limit, "stopped after the --max-wall budget of " +
                                                std::to_string(budget_s) + " s; no output written");
}

namespace {

RunControl& command_control() {
  static RunControl control;
  return control;
}

}  // namespace

void set_command_control(const RunControl& control) {
  command_control() = control;
}

void check_command() {
  command_control().check();
}

void require_finished(const RunStats& stats, const std::vector<std::string>& stuck) {
  if (stats.outcome == RunOutcome::event_budget)
    throw SimulationError("event budget exhausted after " + std::to_string(stats.events) +
                          " events at t = " + stats.end.to_string() +
                          "; raise the budget or simulate less");
  if (stuck.empty()) return;
  if (stats.outcome == RunOutcome::time_limit)
    throw SimulationError("time limit reached at t = " + stats.end.to_string() + " with " +
                          std::to_string(stuck.size()) + " item(s) unfinished");
  std::string names;
  const std::size_t shown = stuck.size() < 10 ? stuck.size() : 10;
  for (std::size_t i = 0; i < shown; ++i) names += (i ? ", " : "") + stuck[i];
  if (stuck.size() > shown) names += ", ... (" + std::to_string(stuck.size() - shown) + " more)";
  throw SimulationError("deadlock at t = " + stats.end.to_string() + ": no event pending but " +
                        std::to_string(stuck.size()) + " item(s) still waiting: " + names);
}

}  // namespace stepsim::engine
