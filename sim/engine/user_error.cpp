#include "sim/engine/user_error.hpp"

namespace stepsim::engine {

std::string SourceLoc::to_string() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

UserError::UserError(SourceLoc loc, std::string message, std::string hint)
    : std::runtime_error(loc.to_string() + ": error: " + message),
      loc_(std::move(loc)),
      message_(std::move(message)),
      hint_(std::move(hint)) {}

std::string UserError::render() const {
  std::string s = loc_.to_string() + ": error: " + message_;
  if (!hint_.empty()) s += "\n  hint: " + hint_;
  return s;
}

}  // namespace stepsim::engine
