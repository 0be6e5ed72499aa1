#include "sim/engine/check.hpp"

namespace stepsim::engine {

void fail_check(const char* expr, const std::string& what, const char* file, int line) {
  throw InternalError(std::string("internal error: ") + what + " (" + expr + ") at " + file + ":" +
                      std::to_string(line));
}

}  // namespace stepsim::engine
