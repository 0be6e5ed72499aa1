// SIGINT: the first Ctrl-C asks the running simulation to stop at its next check (it then exits
// without writing any output); a second one ends the process at once.
#pragma once

#include <atomic>

namespace stepsim::cli {

const std::atomic<bool>& interrupted();
void install_interrupt_handler();

}  // namespace stepsim::cli
