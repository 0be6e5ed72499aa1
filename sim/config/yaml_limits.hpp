// Bounds on what a YAML file may ask of the reader, checked on the parser's events before any
// node tree is built, so that a shared file cannot exhaust memory or time: the file's size, a
// scalar's size, the nesting depth, and the node count after every alias is expanded (a
// "billion laughs" document is refused before it expands). The events come first for every text,
// small ones too: yaml-cpp reads some malformed texts (a lone ",") as one empty document after
// another without end, which a tree builder such as YAML::LoadAll follows until memory runs out,
// and the events stop at the second document.
#pragma once

#include <cstddef>
#include <string>

namespace stepsim::config {

inline constexpr std::size_t kMaxFileBytes = 16u << 20;

// Throws engine::UserError at the first bound `text` (the contents of `file`, or a --set value)
// exceeds.
void check_limits(const std::string& file, const std::string& text);

}  // namespace stepsim::config
