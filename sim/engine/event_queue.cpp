#include "sim/engine/event_queue.hpp"

#include "sim/engine/check.hpp"

namespace stepsim::engine {

void EventQueue::reserve(std::size_t n) {
  heap_.reserve(n);
  slots_.reserve(n);
  free_.reserve(n);
}

EventId EventQueue::push(Time at, EventHandler* handler, std::uint64_t tag) {
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    STEPSIM_CHECK(slots_.size() < (std::size_t{1} << kSlotBits), "more than 2^24 pending events");
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.handler = handler;
  s.tag = tag;
  s.alive = true;
  STEPSIM_CHECK(next_seq_ < (std::uint64_t{1} << (64 - kSlotBits)),
                "event sequence numbers exhausted");
  STEPSIM_CHECK(at.picoseconds() >= 0, "negative event time");
  heap_.push_back(make_entry(at, (next_seq_++ << kSlotBits) | slot));
  sift_up(heap_.size() - 1);
  ++live_;
  return {slot, s.generation};
}

bool EventQueue::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  Slot& s = slots_[id.slot];
  if (!s.alive || s.generation != id.generation) return false;
  s.alive = false;
  --live_;
  if (heap_.size() > 2 * live_ + 64) compact();
  return true;
}

void EventQueue::compact() {
  std::size_t kept = 0;
  for (const Entry e : heap_) {
    Slot& s = slots_[slot_of(e)];
    if (s.alive) {
      heap_[kept++] = e;
    } else {
      ++s.generation;
      free_.push_back(slot_of(e));
    }
  }
  // Re-insert the survivors (keys unchanged, so their order is too); amortised over the cancels.
  heap_.resize(kept);
  for (std::size_t i = 1; i < kept; ++i) sift_up(i);
}

void EventQueue::pop_top() {
  const std::uint32_t slot = slot_of(heap_.front());
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  Slot& s = slots_[slot];
  ++s.generation;
  s.alive = false;
  free_.push_back(slot);
}

void EventQueue::drop_dead() {
  while (!heap_.empty() && !slots_[slot_of(heap_.front())].alive) pop_top();
}

bool EventQueue::empty() {
  drop_dead();
  return heap_.empty();
}

Time EventQueue::next_time() {
  drop_dead();
  STEPSIM_CHECK(!heap_.empty(), "next_time on an empty queue");
  return time_of(heap_.front());
}

EventQueue::Fired EventQueue::pop() {
  drop_dead();
  STEPSIM_CHECK(!heap_.empty(), "pop on an empty queue");
  const Entry top = heap_.front();
  const Slot& s = slots_[slot_of(top)];
  const Fired f{time_of(top), s.handler, s.tag};
  pop_top();
  --live_;
  return f;
}

void EventQueue::sift_up(std::size_t i) {
  const Entry e = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

// Bottom-up: move the hole to a leaf along the smaller children (no comparison with the moved
// entry on the way), then sift the entry up from there; it usually belongs near the bottom.
void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  const Entry e = heap_[i];
  while (true) {
    const std::size_t first = 4 * i + 1;
    if (first >= n) break;
    std::size_t best = first;
    if (first + 4 <= n) {
      const std::size_t b01 = before(heap_[first + 1], heap_[first]) ? first + 1 : first;
      const std::size_t b23 = before(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
      best = before(heap_[b23], heap_[b01]) ? b23 : b01;
    } else {
      for (std::size_t c = first + 1; c < n; ++c) best = before(heap_[c], heap_[best]) ? c : best;
    }
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = e;
  sift_up(i);
}

bool EventQueue::pop_until(Time limit, Fired& out) {
  drop_dead();
  if (heap_.empty() || time_of(heap_.front()) > limit) return false;
  const Entry top = heap_.front();
  const Slot& s = slots_[slot_of(top)];
  out = {time_of(top), s.handler, s.tag};
  pop_top();
  --live_;
  return true;
}

}  // namespace stepsim::engine
