#include "sim/engine/user_error.hpp"

#include <cstdio>

namespace stepsim::engine {

namespace {

// Control characters from a user's value (a NUL, a line break inside a quoted word) are shown
// as escapes, so that a message is always one line plus its hint.
std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  }
  return out;
}

}  // namespace

std::string SourceLoc::to_string() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

UserError::UserError(SourceLoc loc, std::string message, std::string hint)
    : std::runtime_error(printable(loc.to_string()) + ": error: " + printable(message)),
      loc_(std::move(loc)),
      message_(printable(message)),
      hint_(printable(hint)) {}

std::string UserError::render() const {
  std::string s = printable(loc_.to_string()) + ": error: " + message_;
  if (!hint_.empty()) s += "\n  hint: " + hint_;
  return s;
}

}  // namespace stepsim::engine
