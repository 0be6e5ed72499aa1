// SIGINT, SIGTERM and SIGHUP: the first one asks the command to stop at its next check (the
// simulation loop, each chunk of an output file, the moment before outputs are committed); the
// command then exits with 128 + the signal's number, leaving no output and no temporary file.
// A second signal ends the process at once (128 + its number), after removing the temporary files
// of staged outputs. SIGPIPE and SIGXFSZ are ignored: a closed pipe or a file size limit is a
// write error, reported and cleaned up like any other.
//
// Temporary files are registered here (a fixed table, so that the handler only reads memory
// and calls unlink(), both async-signal-safe). Once a command starts renaming its outputs into
// place it blocks the three signals for the rest of the process: the commit is the point of no
// return, so a set of outputs is committed whole or not at all, and a signal that arrives during
// it counts as arriving after the command ended.
#pragma once

#include <atomic>
#include <string>

namespace stepsim::cli {

const std::atomic<bool>& interrupted();
// The signal that set `interrupted()`, 0 when none.
const std::atomic<int>& interrupt_signal();
void install_interrupt_handler();
// Throws engine::Stopped when a signal has arrived.
void throw_if_interrupted();

// Registers a temporary file for removal on a second signal; returns its slot, or -1 when the
// table is full (the file is then still removed by its owner on every ordinary exit path).
int register_temporary(const std::string& path);
void unregister_temporary(int slot);

// Blocks SIGINT, SIGTERM and SIGHUP until the process exits.
void block_signals_until_exit();

}  // namespace stepsim::cli
