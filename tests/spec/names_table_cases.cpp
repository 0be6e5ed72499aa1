// Word tables (sim/spec/names.hpp) that must not compile, one per macro, and one that must:
// compiled alone by the spec_names_* tests (tests/CMakeLists.txt), which look for the check's
// own message in the compiler's output.
#include "sim/spec/names.hpp"

enum class Kind { a, b, c };

#if defined(MISSING_ROW)
inline constexpr stepsim::spec::Names<Kind, 3> kKinds{{{"a"}, {"b"}}};
#elif defined(EXTRA_ROW)
inline constexpr stepsim::spec::Names<Kind, 3> kKinds{{{"a"}, {"b"}, {"c"}, {"d"}}};
#elif defined(EMPTY_WORD)
inline constexpr stepsim::spec::Names<Kind, 3> kKinds{{{"a"}, {"", "bee"}, {"c"}}};
#elif defined(SAME_WORD)
inline constexpr stepsim::spec::Names<Kind, 3> kKinds{{{"a"}, {"b"}, {"a"}}};
#else
inline constexpr stepsim::spec::Names<Kind, 3> kKinds{{{"a"}, {"b", "bee"}, {"c"}}};
static_assert(kKinds.word(Kind::b) == "b" && kKinds.phrase(Kind::b) == "bee" &&
              kKinds.phrase(Kind::c) == "c");
#endif

int main() {}
