#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "tests/test_support.hpp"

// The sanitizer build: the stepsim processes a test starts skip LeakSanitizer's scan at exit
// unless the test asks for it (test::ChildLeakChecks). The test program itself keeps it: its
// sanitizers read their options before this runs.
#ifdef STEPSIM_TEST_SANITIZED
static const bool kChildLeaksOff = [] {
  stepsim::test::set_child_leak_checks(false);
  return true;
}();
#endif
