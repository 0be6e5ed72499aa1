// The text in which a search's results cross the workers (run/workers.hpp: threads and MPI
// ranks hand strings back): numbers as the shortest text that reads back to the same value
// (std::to_chars, exact for doubles), each followed by one space, then free text to the end.
// Every layout of a plan passes through it, so it avoids streams and formatted printing.
#pragma once

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <type_traits>

namespace stepsim::search::wire {

template <typename T>
requires std::is_arithmetic_v<T>
void put(std::string& out, T v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
  out += ' ';
}

// Reads back what put wrote: words in order, then the rest.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  std::string_view word() {
    const std::size_t end = std::min(s_.find(' ', at_), s_.size());
    const std::string_view w = s_.substr(at_, end - at_);
    at_ = std::min(end + 1, s_.size());
    return w;
  }
  template <typename T>
  T number() {
    const std::string_view w = word();
    T v{};
    std::from_chars(w.data(), w.data() + w.size(), v);
    return v;
  }
  std::string rest() const { return std::string(s_.substr(at_)); }

 private:
  std::string_view s_;
  std::size_t at_ = 0;
};

}  // namespace stepsim::search::wire
