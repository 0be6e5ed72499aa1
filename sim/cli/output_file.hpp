// Writing a report to a file all-or-nothing: the text goes to a temporary file beside the target,
// which is renamed over it only when complete. A failed run leaves no partial file and never
// replaces a good one.
#pragma once

#include <string>

namespace stepsim::cli {

// Throws engine::UserError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace stepsim::cli
