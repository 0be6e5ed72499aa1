#include "sim/cli/huge_pages.hpp"

#include <doctest/doctest.h>

using stepsim::cli::tunables_with_huge_pages;

TEST_CASE("The huge-page tunable is added to GLIBC_TUNABLES once, after the user's own") {
  CHECK(tunables_with_huge_pages(nullptr) == "glibc.malloc.hugetlb=1");
  CHECK(tunables_with_huge_pages("") == "glibc.malloc.hugetlb=1");
  CHECK(tunables_with_huge_pages("glibc.malloc.arena_max=2") ==
        "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  // Already named by the user: left as it is (theirs wins).
  CHECK_FALSE(tunables_with_huge_pages("glibc.malloc.hugetlb=0").has_value());
  CHECK_FALSE(tunables_with_huge_pages("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
}

TEST_CASE("A malloc tunable the user sets in GLIBC_TUNABLES is theirs: stepsim leaves it") {
  using stepsim::cli::names_tunable;
  CHECK_FALSE(names_tunable(nullptr, "glibc.malloc.trim_threshold"));
  CHECK_FALSE(names_tunable("", "glibc.malloc.trim_threshold"));
  CHECK_FALSE(names_tunable("glibc.malloc.hugetlb=1", "glibc.malloc.trim_threshold"));
  CHECK(names_tunable("glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=0",
                      "glibc.malloc.trim_threshold"));
  CHECK(names_tunable("glibc.malloc.mmap_threshold=65536", "glibc.malloc.mmap_threshold"));
}
