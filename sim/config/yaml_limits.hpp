// Bounds on what a YAML file may ask of the reader, so that a shared file cannot exhaust memory
// or time: the file's size, a scalar's size, the nesting depth, and the node count after every
// alias is expanded (a "billion laughs" document is refused before anything walks it expanded).
//
// Two ways to check, one answer. A text of more than 64 KiB is checked on the parser's events
// before any node tree is built (check_limits), then parsed again into its tree: a large text
// could otherwise build millions of nodes (hundreds of bytes each) before it is refused. A
// smaller text, every scenario, model, cluster and kernel table shipped (the largest is 5 KB), is
// parsed once and its tree walked: at two nodes a byte at most it builds at most 131,072 nodes
// (tens of MB), and a parse costs as much as the events do (yaml-cpp's scanner, a fifth of a
// small run's time, is half of it saved). A value's size cannot exceed a small text; yaml-cpp
// refuses to nest past 2,000 levels, and the walk stops at the 65th; a tree shares an aliased
// node (nothing expands while it is built), and the walk counts it at every alias, stopping at
// the 1,000,001st value, so a "billion laughs" costs a million steps before it is refused.
#pragma once

#include <yaml-cpp/node/node.h>

#include <cstddef>
#include <string>

namespace stepsim::config {

inline constexpr std::size_t kMaxFileBytes = 16u << 20;

// Throws engine::UserError at the first bound `text` (the contents of `file`, or a --set value)
// exceeds.
void check_limits(const std::string& file, const std::string& text);

// The one document of `text` (the contents of `file`, or a --set value), within the bounds: an
// undefined node for an empty text. Throws engine::UserError at the first bound exceeded, and
// yaml-cpp's ParserException at a syntax error.
YAML::Node load_within_limits(const std::string& file, const std::string& text);

}  // namespace stepsim::config
