#include "sim/cli/interrupt.hpp"

#include <csignal>
#include <cstdlib>

namespace stepsim::cli {

namespace {
std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  if (g_interrupted.exchange(true)) std::_Exit(130);
}
}  // namespace

const std::atomic<bool>& interrupted() { return g_interrupted; }

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }

}  // namespace stepsim::cli
