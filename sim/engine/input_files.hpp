// Every file a command has read, registered where files are opened (config's Document::load for
// YAML and JSON, the calibration CSV reader): the transitive input set of the command, whatever
// part of it read the file (a scenario's model, a cluster's device, the kernel tables a device
// names, each --vary value that names a file). An output is checked against the whole set before
// anything is written (cli/output_file.hpp), so no command can replace a file it read.
// A file is identified as POSIX does, by device and inode, taken when it is opened: a path spelt
// another way, a symbolic or hard link to it, all name the same input. Thread-safe: plan and sweep
// load scenarios on worker threads.
#pragma once

#include <string>
#include <vector>

namespace stepsim::engine {

struct InputFile {
  std::string path;  // as the reader was given it, for messages
  unsigned long long device = 0, inode = 0;
};

// Registers `path` as read by this command (nothing when it cannot be stat'ed).
void note_input(const std::string& path);
// The input `path` is, if any: it exists and has the device and inode of a registered input that
// still exists as it was read (a deleted input's inode may be another file's by now).
const InputFile* input_named(const std::string& path);
// Forgets every registered input: a command run in the same process as another (the tests, the
// fuzzers) starts with none.
void forget_inputs();
// Every input registered so far, in the order first read.
std::vector<InputFile> inputs_read();

}  // namespace stepsim::engine
