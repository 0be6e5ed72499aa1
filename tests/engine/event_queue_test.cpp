#include "sim/engine/event_queue.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace stepsim::engine;

TEST_CASE("Events pop in time order, ties first-in first-out") {
  EventQueue q;
  q.push(Time::ns(30), nullptr, 1);
  q.push(Time::ns(10), nullptr, 2);
  q.push(Time::ns(20), nullptr, 3);
  q.push(Time::ns(10), nullptr, 4);
  q.push(Time::ns(10), nullptr, 5);
  std::vector<std::uint64_t> order;
  while (!q.empty()) order.push_back(q.pop().tag);
  CHECK(order == std::vector<std::uint64_t>{2, 4, 5, 3, 1});
}

TEST_CASE("Cancelled events never fire; cancelling twice or after firing is a no-op") {
  EventQueue q;
  const EventId a = q.push(Time::ns(1), nullptr, 1);
  const EventId b = q.push(Time::ns(2), nullptr, 2);
  q.push(Time::ns(3), nullptr, 3);
  CHECK(q.cancel(b));
  CHECK_FALSE(q.cancel(b));
  CHECK(q.live() == 2);
  CHECK(q.pop().tag == 1);
  CHECK_FALSE(q.cancel(a));  // already fired
  CHECK(q.next_time() == Time::ns(3));
  CHECK(q.pop().tag == 3);
  CHECK(q.empty());
}

TEST_CASE("A reused slot does not honour a stale id") {
  EventQueue q;
  const EventId a = q.push(Time::ns(1), nullptr, 1);
  q.pop();
  const EventId b = q.push(Time::ns(2), nullptr, 2);
  CHECK(a.slot == b.slot);
  CHECK_FALSE(q.cancel(a));
  CHECK(q.live() == 1);
}

TEST_CASE("Matches a reference ordering on random input and reuses slots") {
  std::mt19937_64 rng(7);
  EventQueue q;
  std::vector<std::pair<std::int64_t, std::uint64_t>> ref;  // (time, seq)
  std::uint64_t seq = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::int64_t t = static_cast<std::int64_t>(rng() % 100);
    q.push(Time::ps(t), nullptr, seq);
    ref.push_back({t, seq++});
  }
  std::sort(ref.begin(), ref.end());
  for (const auto& [t, s] : ref) {
    const auto f = q.pop();
    REQUIRE(f.time == Time::ps(t));
    REQUIRE(f.tag == s);
  }
  // Steady state: 64 outstanding events, 100k scheduled in all; the slab stays at 64 slots.
  EventQueue r;
  for (int i = 0; i < 64; ++i) r.push(Time::ps(i), nullptr, 0);
  for (int i = 0; i < 100000; ++i) {
    const auto f = r.pop();
    r.push(f.time + Time::ps(1 + static_cast<std::int64_t>(rng() % 50)), nullptr, 0);
  }
  CHECK(r.slab_size() == 64);
}

TEST_CASE("Cancel-heavy use keeps the slab proportional to live events") {
  EventQueue q;
  EventId pending{};
  for (int i = 0; i < 100000; ++i) {
    q.cancel(pending);
    pending = q.push(Time::ps(1000 + i), nullptr, static_cast<std::uint64_t>(i));
  }
  CHECK(q.live() == 1);
  CHECK(q.slab_size() < 200);
  CHECK(q.pop().tag == 99999);
  CHECK(q.empty());
}

TEST_CASE("Compaction keeps the order of the survivors") {
  EventQueue q;
  std::vector<EventId> ids;
  for (int i = 0; i < 1000; ++i)
    ids.push_back(q.push(Time::ps(1000 - i % 97), nullptr, static_cast<std::uint64_t>(i)));
  for (int i = 0; i < 1000; i += 2) q.cancel(ids[static_cast<std::size_t>(i)]);
  Time last;
  std::size_t n = 0;
  while (!q.empty()) {
    const auto f = q.pop();
    CHECK(f.tag % 2 == 1);
    CHECK(f.time >= last);
    last = f.time;
    ++n;
  }
  CHECK(n == 500);
}
