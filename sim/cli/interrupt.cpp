#include "sim/cli/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "sim/engine/simulator.hpp"

namespace stepsim::cli {

namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
std::array<std::atomic<bool>, kSlots> g_used{};
std::array<std::array<char, kPathMax>, kSlots> g_paths{};

extern "C" void on_signal(int sig) {
  // The number first: whoever sees the flag set reads the signal that set it.
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  if (g_interrupted.exchange(true)) {
    for (int i = 0; i < kSlots; ++i)
      if (g_used[i].load()) ::unlink(g_paths[i].data());
    ::_exit(128 + sig);
  }
}

sigset_t handled_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

const std::atomic<bool>& interrupted() {
  return g_interrupted;
}

const std::atomic<int>& interrupt_signal() {
  return g_signal;
}

void install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_mask = handled_set();  // one handler at a time
  sa.sa_flags = SA_RESTART;    // a blocked write resumes; the flag is checked after it
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  // A process inherits its parent's signal mask through fork and exec: a launcher that blocks
  // them would otherwise leave stepsim deaf to every signal.
  const sigset_t set = handled_set();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  // Until a command sets its own (run_control), the loops that check the command's control see
  // the signals.
  engine::RunControl control;
  control.interrupted = &interrupted();
  control.signal = &interrupt_signal();
  engine::set_command_control(control);
  // Writing to a closed pipe is reported as a write error, not a silent death that would leave
  // staged temporary files behind.
  signal(SIGPIPE, SIG_IGN);
  // Likewise a file size limit reached while writing an output: EFBIG, reported, not a kill.
  signal(SIGXFSZ, SIG_IGN);
}

void throw_if_interrupted() {
  if (g_interrupted.load())
    throw engine::Stopped(engine::Stopped::Why::interrupted, "interrupted; no output written",
                          g_signal.load());
}

int register_temporary(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) continue;
    std::memcpy(g_paths[i].data(), path.c_str(), path.size() + 1);
    g_used[i].store(true);
    return i;
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_used[slot].store(false);
}

void block_signals_until_exit() {
  const sigset_t set = handled_set();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace stepsim::cli
