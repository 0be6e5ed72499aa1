#include "sim/engine/int_table.hpp"

#include <doctest/doctest.h>

#include <map>
#include <vector>

using namespace stepsim::engine;

TEST_CASE("IntTable: every key keeps its own value through growth, absent keys are absent") {
  IntTable<double> t;
  CHECK(t.find(0) == nullptr);
  std::map<int, double> want;
  // Consecutive ids, strided ids (the same low bits) and large ids, interleaved.
  for (int i = 0; i < 5000; ++i) {
    for (int key : {i, i * 1024, 2'000'000'000 - i}) {
      t[key] += key + 0.5;
      want[key] += key + 0.5;
    }
  }
  CHECK(t.size() == want.size());
  for (const auto& [key, value] : want) {
    REQUIRE(t.find(key) != nullptr);
    CHECK(*t.find(key) == value);
  }
  for (int key : {5000, 5'000'001, 1'999'990'000, 123'456'789}) CHECK(t.find(key) == nullptr);
  std::map<int, double> seen;
  t.for_each([&](int key, double value) { CHECK(seen.emplace(key, value).second); });
  CHECK(seen == want);
}

TEST_CASE("IntTable: a new key's value is value-initialised; a negative key is never found") {
  struct Pair {
    int a = -1;
    double b = 0.0;
  };
  IntTable<Pair> t;
  CHECK(t[7].a == -1);
  t[7].a = 3;
  CHECK(t[7].a == 3);
  CHECK(t.size() == 1);
  CHECK(t.find(-1) == nullptr);
}

TEST_CASE("IntTable: the same insertions iterate in the same order; a negative key is a bug") {
  auto order = [] {
    IntTable<int> t;
    for (int i = 0; i < 300; ++i) t[(i * 7919) % 1000] = i;
    std::vector<int> keys;
    t.for_each([&](int key, int) { keys.push_back(key); });
    return keys;
  };
  CHECK(order() == order());
  IntTable<int> t;
  CHECK_THROWS_AS(t[-1], InternalError);
}
