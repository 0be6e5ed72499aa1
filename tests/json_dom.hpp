// A small JSON parser for tests: enough to check that reports and traces are valid JSON and to
// read fields back. Throws std::runtime_error with the offset on malformed input.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace stepsim::test {

struct JsonMember;

struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool b = false;
  double num = 0.0;
  std::string str;
  std::vector<Json> arr;
  std::vector<JsonMember> obj;  // in document order

  const Json* find(const std::string& key) const;
  const Json& at(const std::string& key) const;
};

// An object's member (a struct, not std::pair: a pair of an incomplete Json is ill-formed).
struct JsonMember {
  std::string key;
  Json value;
};

inline const Json* Json::find(const std::string& key) const {
  for (const auto& [k, v] : obj)
    if (k == key) return &v;
  return nullptr;
}

inline const Json& Json::at(const std::string& key) const {
  const Json* j = find(key);
  if (!j) throw std::runtime_error("no key " + key);
  return *j;
}

Json parse_json(const std::string& text);

}  // namespace stepsim::test
