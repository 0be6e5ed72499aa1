// JSON for tests, through nlohmann::json (Debian's nlohmann-json3-dev): an ordered document, so
// tests can check key order as written.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace stepsim::test {

using Json = nlohmann::ordered_json;

// The document; throws std::runtime_error with the parser's message on malformed input.
Json parse_json(const std::string& text);

}  // namespace stepsim::test
