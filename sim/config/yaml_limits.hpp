// Bounds on what a YAML file may ask of the reader, checked on the parser's events before any
// node tree is built, so that a shared file cannot exhaust memory or time: the file's size, a
// scalar's size, the nesting depth, and the node count after every alias is expanded (a
// "billion laughs" document is refused before it expands).
#pragma once

#include <cstddef>
#include <string>

namespace stepsim::config {

inline constexpr std::size_t kMaxFileBytes = 16u << 20;

// Throws engine::UserError at the first bound `text` (the contents of `file`, or a --set value)
// exceeds.
void check_limits(const std::string& file, const std::string& text);

}  // namespace stepsim::config
