// The one error type for user mistakes: bad files, bad values, impossible configurations.
//
// It carries where the mistake is (file:line:column, 1-based; line 0 when only the file is
// known), what is wrong, and a hint for fixing it. Library code throws it; only `main` catches
// it, prints `file:line:col: error: message` and `  hint: ...`, and exits with status 2.
// Control characters in the message (from a user's value) are shown as \xNN escapes.
#pragma once

#include <stdexcept>
#include <string>

namespace stepsim::engine {

struct SourceLoc {
  std::string file;  // "" when the value did not come from a file; "<command line>" for --set
  int line = 0;      // 1-based, 0 = unknown
  int column = 0;    // 1-based, 0 = unknown
  std::string to_string() const;
};

class UserError : public std::runtime_error {
 public:
  UserError(SourceLoc loc, std::string message, std::string hint = {});
  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }
  // "file:line:col: error: message\n  hint: hint"
  std::string render() const;

 private:
  SourceLoc loc_;
  std::string message_;
  std::string hint_;
};

}  // namespace stepsim::engine
