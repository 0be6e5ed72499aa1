// A streaming JSON writer with deterministic output: keys in the order written, two-space
// indentation. The document's structure is streamed (a trace holds millions of events; a DOM of it
// would hold gigabytes); every scalar is serialised by nlohmann::json (Debian's
// nlohmann-json3-dev): string escaping, invalid UTF-8 replaced by U+FFFD, numbers in the shortest
// form that reads back to the same double. Non-finite numbers are written as null.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepsim::format {

class JsonWriter {
 public:
  // Compact output (one line, no spaces) for large files such as traces.
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(long long v);
  JsonWriter& value(int v) { return value(static_cast<long long>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
  bool pretty_ = true;
};

std::string json_escape(std::string_view s);

}  // namespace stepsim::format
