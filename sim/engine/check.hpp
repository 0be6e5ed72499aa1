// Internal invariants. A failed check is a bug in stepsim, never a user mistake (those throw
// UserError): it throws InternalError with the source position, which main reports as a bug.
#pragma once

#include <stdexcept>
#include <string>

namespace stepsim::engine {

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* expr, const std::string& what, const char* file, int line);

}  // namespace stepsim::engine

// After a switch that handles every value of its enum: a value outside them is a bug.
#define STEPSIM_UNREACHABLE(what) \
  ::stepsim::engine::fail_check("unreachable", (what), __FILE__, __LINE__)

#define STEPSIM_CHECK(cond, what)                                                  \
  do {                                                                             \
    if (!(cond)) ::stepsim::engine::fail_check(#cond, (what), __FILE__, __LINE__); \
  } while (0)
