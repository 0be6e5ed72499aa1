#include "tests/json_dom.hpp"

#include <stdexcept>

namespace stepsim::test {

Json parse_json(const std::string& text) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    throw std::runtime_error(std::string("json: ") + e.what());
  }
}

}  // namespace stepsim::test
