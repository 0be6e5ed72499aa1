// Output files that never destroy and are written all-or-nothing.
//
// Every output path is declared before any work (`add`) and checked at once: not empty, a
// regular file or a new name in an existing directory (never a directory, device, FIFO or
// socket), not the same file as another output of the command, and not a file the command reads:
// one named in `check_inputs`, or any the command has read (engine/input_files.hpp: every file
// config opened, transitively), checked again in `finish` before anything is written, so that a
// file read after the outputs were declared (a --vary value, a device's kernel tables) is covered.
// A symbolic link is written through: its target is replaced or, dangling, created, the link kept.
// An output that is the file standard output is redirected to is refused when the command also
// prints text there (`--report /dev/stdout > f`: one would replace the other). Each file's text
// goes to a temporary file beside its target, written in chunks that check for a signal; `finish`
// writes standard output, then renames every staged file over its target with the signals blocked.
// A rename that fails puts back the files already replaced, so a failed or interrupted command
// leaves no partial file, no partial set and no temporary file.
#pragma once

#include <string>
#include <vector>

#include "sim/engine/input_files.hpp"
#include "sim/engine/simulator.hpp"

namespace stepsim::cli {

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();  // removes what was staged and not committed

  // Declares the output `path` given by `option` (e.g. "--trace"); throws engine::UserError
  // naming the option when the path is unusable or names another output's file.
  void add(const std::string& option, const std::string& path);
  // Throws engine::UserError when an output is one of `inputs` (files this command reads).
  void check_inputs(const std::vector<std::string>& inputs) const;
  // Throws engine::UserError when an output is a file the command has read so far (called by
  // `add` and `finish`, and by a command once it has loaded everything, before its long work).
  void check_read() const;
  // A wall-clock budget (--max-wall) that the output phase honours too: checked between chunks and
  // before the commit (engine::Stopped, exit 3).
  void set_control(const engine::RunControl* control) { control_ = control; }
  // Writes `text` to the temporary file of the declared output `path`.
  void stage(const std::string& path, const std::string& text);
  // Writes `stdout_text` to standard output, then commits every staged file. Throws
  // engine::UserError on a write error and engine::Stopped when a signal has arrived; both leave
  // no output file.
  void finish(const std::string& stdout_text);
  // A command's one report: to the declared output `path` (staged, then committed), or to standard
  // output when `path` is empty.
  void finish_report(const std::string& path, const std::string& text);

 private:
  struct Output {
    std::string option;
    std::string path;     // as the user typed it, for messages
    std::string target;   // the file replaced: `path` with symbolic links resolved
    std::string temp;     // staged text, "" until staged
    int slot = -1;        // in the interrupt handler's table of temporary files
    bool exists = false;  // when declared; then its device and inode
    unsigned long long device = 0, inode = 0;
    bool is_stdout = false;  // the regular file standard output is redirected to
  };
  Output& find(const std::string& path);
  void discard();
  std::vector<Output> outputs_;
  const engine::RunControl* control_ = nullptr;
};

// Thrown by write_stdout when the reading end of the output pipe has closed (`stepsim ... | head`):
// the command ends quietly with status 141, as SIGPIPE would end it, and writes no file.
struct StdoutClosed {};

// Writes `text` to standard output; throws StdoutClosed on a closed pipe, engine::UserError when
// it cannot otherwise (a full disk).
void write_stdout(const std::string& text);

}  // namespace stepsim::cli
