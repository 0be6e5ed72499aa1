#include "sim/engine/user_error.hpp"

#include <algorithm>
#include <cstdio>

namespace stepsim::engine {

namespace {

// A word (a run without spaces: a value, a key, a path) longer than this is elided in the middle.
constexpr std::size_t kLongWord = 200, kKeepHead = 100, kKeepTail = 40;

// Where a cut may fall: not inside a UTF-8 sequence.
std::size_t char_start(const std::string& s, std::size_t i) {
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) --i;
  return i;
}

std::string elide_long_words(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = std::min(text.find(' ', i), text.size());
    const std::string word = text.substr(i, end - i);
    if (word.size() > kLongWord) {
      const std::size_t head = char_start(word, kKeepHead);
      const std::size_t tail = char_start(word, word.size() - kKeepTail);
      out += word.substr(0, head) + "...(" + std::to_string(word.size()) + " bytes)..." +
             word.substr(tail);
    } else {
      out += word;
    }
    if (end < text.size()) out += ' ';
    i = end + 1;
  }
  return out;
}

// Control characters from a user's value (a NUL, a line break inside a quoted word) are shown
// as escapes, so that a message is always one line plus its hint; a long word (a 100 KB key or
// value) is shown by its start, its end and its length, so that a message stays short.
std::string printable(const std::string& text) {
  return elide_long_words(escape_control_bytes(text));
}

}  // namespace

std::string escape_control_bytes(const std::string& text) {
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

void refuse_control_bytes(const std::string& file, std::string_view text, const std::string& hint,
                          int line) {
  // UTF-16 (Windows editors' "Unicode"): a byte-order mark, or ASCII text with every other byte
  // NUL. Named as what it is rather than as its first NUL.
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const bool mark = text.size() >= 2 &&
                    ((byte(0) == 0xff && byte(1) == 0xfe) || (byte(0) == 0xfe && byte(1) == 0xff));
  const bool halves = text.size() >= 4 && (byte(0) == 0) != (byte(1) == 0) &&
                      (byte(2) == 0) != (byte(3) == 0) && (byte(0) == 0) == (byte(2) == 0);
  if (mark || halves)
    throw UserError({file, line, 0}, "the file is UTF-16 text, not UTF-8",
                    "save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 FILE > NEW)");
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\r') continue;
    char code[48];
    std::snprintf(code, sizeof code, "control byte 0x%02x%s in the file", c,
                  c == 0      ? " (NUL)"
                  : c == 0x1b ? " (ESC)"
                              : "");
    throw UserError({file, line, static_cast<int>(i - line_start) + 1}, code, hint);
  }
}

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

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::optional<std::string> did_you_mean(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string listing(const std::vector<std::string>& words) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
  return s;
}

std::string choice_hint(const std::string& word, const std::vector<std::string>& words) {
  const std::string hint = "expected one of: " + listing(words);
  if (auto m = did_you_mean(word, words)) return "did you mean '" + *m + "'? (" + hint + ")";
  return hint;
}

}  // namespace stepsim::engine
