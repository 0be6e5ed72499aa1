#include "tests/json_dom.hpp"

#include <cctype>
#include <cstdlib>

namespace stepsim::test {

namespace {

struct Parser {
  const std::string& s;
  std::size_t i = 0;

  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i));
  }
  void ws() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  char peek() {
    ws();
    return i < s.size() ? s[i] : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        ++i;
        if (i >= s.size()) fail("bad escape");
        const char e = s[i++];
        switch (e) {
          case '"':
          case '\\':
          case '/':
            out += e;
            break;
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u':
            if (i + 4 > s.size()) fail("bad \\u");
            i += 4;
            out += '?';
            break;
          default:
            fail("bad escape");
        }
      } else {
        if (static_cast<unsigned char>(s[i]) < 0x20) fail("control character in string");
        out += s[i++];
      }
    }
    expect('"');
    return out;
  }
  Json value() {
    Json j;
    const char c = peek();
    if (c == '{') {
      j.type = Json::Type::object;
      ++i;
      if (peek() == '}') {
        ++i;
        return j;
      }
      while (true) {
        std::string k = string();
        expect(':');
        j.obj.push_back({std::move(k), value()});
        if (peek() == ',') {
          ++i;
          continue;
        }
        expect('}');
        return j;
      }
    }
    if (c == '[') {
      j.type = Json::Type::array;
      ++i;
      if (peek() == ']') {
        ++i;
        return j;
      }
      while (true) {
        j.arr.push_back(value());
        if (peek() == ',') {
          ++i;
          continue;
        }
        expect(']');
        return j;
      }
    }
    if (c == '"') {
      j.type = Json::Type::string;
      j.str = string();
      return j;
    }
    if (s.compare(i, 4, "true") == 0) {
      i += 4;
      j.type = Json::Type::boolean;
      j.b = true;
      return j;
    }
    if (s.compare(i, 5, "false") == 0) {
      i += 5;
      j.type = Json::Type::boolean;
      return j;
    }
    if (s.compare(i, 4, "null") == 0) {
      i += 4;
      return j;
    }
    char* end = nullptr;
    j.num = std::strtod(s.c_str() + i, &end);
    if (end == s.c_str() + i) fail("unexpected character");
    i = static_cast<std::size_t>(end - s.c_str());
    j.type = Json::Type::number;
    return j;
  }
};

}  // namespace

Json parse_json(const std::string& text) {
  Parser p{text};
  Json j = p.value();
  if (p.peek() != '\0') p.fail("trailing characters");
  return j;
}

}  // namespace stepsim::test
