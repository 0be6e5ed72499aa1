#include "sim/engine/chunked_vector.hpp"

#include <doctest/doctest.h>

#include <vector>

using stepsim::engine::ChunkedVector;

TEST_CASE(
    "ChunkedVector: elements keep their values and addresses as it grows; one chunk of slack") {
  ChunkedVector<double, 4> v;  // chunks of 16
  CHECK(v.empty());
  std::vector<const double*> where;
  for (int i = 0; i < 100; ++i) {
    v.emplace_back() = i * 1.5;
    where.push_back(&v.back());
    CHECK(v.size() == static_cast<std::size_t>(i + 1));
    // At most one chunk beyond what is used, never a doubling.
    CHECK(v.capacity() >= v.size());
    CHECK(v.capacity() < v.size() + 16);
  }
  for (int i = 0; i < 100; ++i) {
    CHECK(v[i] == i * 1.5);
    CHECK(&v[i] == where[i]);  // never moved
  }
  const auto& c = v;
  CHECK(c[99] == 99 * 1.5);
  v.clear();
  CHECK(v.empty());
  CHECK(v.capacity() == 0);
  CHECK(v.emplace_back() == 0.0);  // value-initialised, not what the slot held before
}

TEST_CASE("ChunkedVector: a new element is value-initialised") {
  struct Record {
    int a = 7;
    double b = 2.5;
  };
  ChunkedVector<Record, 1> v;  // chunks of 2
  for (int i = 0; i < 5; ++i) {
    Record& r = v.emplace_back();
    CHECK(r.a == 7);
    CHECK(r.b == 2.5);
    r.a = i;
  }
  CHECK(v[3].a == 3);
}
