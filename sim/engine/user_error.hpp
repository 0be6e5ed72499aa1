// The one error type for user mistakes: bad files, bad values, impossible configurations.
//
// It carries where the mistake is (file:line:column, 1-based; line 0 when only the file is
// known), what is wrong, and a hint for fixing it. Library code throws it; only `main` catches
// it, prints `file:line:col: error: message` and `  hint: ...`, and exits with status 2.
// Control characters in the message (from a user's value) are shown as \xNN escapes.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

// `text` with every control byte (below 0x20, line breaks and tabs included, and DEL) written as
// a \xNN escape: a user's value (a path, a key) made safe for one line of a message or a comment.
std::string escape_control_bytes(const std::string& text);

// Throws UserError at the first control byte of `text`: a C0 control other than tab, line feed
// and carriage return, or DEL. `text` is a file's contents from its first line, or one line of it
// (`line`). Configuration and measurement files are text: such a byte is a corrupted or binary
// file or a pasted terminal sequence, refused where it sits (file:line:column, the byte named)
// rather than carried into names, messages and outputs. A YAML escape in a quoted string ("\0")
// is not a control byte of the file and is not refused here.
void refuse_control_bytes(const std::string& file, std::string_view text, const std::string& hint,
                          int line = 1);

// The closest of `candidates` to `word` by edit distance, if close enough to be a likely typo.
std::optional<std::string> did_you_mean(const std::string& word,
                                        const std::vector<std::string>& candidates);
// "a, b, c".
std::string listing(const std::vector<std::string>& words);
// A word that must be one of `words`, for a hint: "did you mean 'x'? (expected one of: a, b)", or
// "expected one of: a, b".
std::string choice_hint(const std::string& word, const std::vector<std::string>& words);

}  // namespace stepsim::engine
