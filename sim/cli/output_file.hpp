// Writing outputs all-or-nothing. Each file's text goes to a temporary file beside its target;
// only when every output of a command is staged are they renamed over their targets, so a failed
// run leaves no partial file, no partial set of files, and never replaces a good one.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace stepsim::cli {

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();  // removes what was staged and not committed

  // Throws engine::UserError naming the path when its directory does not exist: checked before
  // a long simulation, so a mistyped path fails at once.
  static void check_directory(const std::string& path);

  // Writes `text` to the staging file of `path`; throws engine::UserError when it cannot.
  void stage(const std::string& path, const std::string& text);
  // Renames every staged file over its target.
  void commit();

 private:
  std::vector<std::pair<std::string, std::string>> staged_;  // (temporary, target)
};

// One file, all-or-nothing.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace stepsim::cli
