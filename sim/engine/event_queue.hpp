// The pending-event set of the discrete-event engine.
//
// Order is the key (time, sequence): events at the same time run in the order they were
// scheduled (FIFO), so a run is deterministic. The queue is a 4-ary min-heap of 16-byte keys
// (time, sequence << 24 | slot) compared as one 128-bit integer; the event itself (its handler and
// tag) lives in a slab slot reused through a free list, so steady-state scheduling allocates
// nothing. Cancelling marks the slot dead in O(1); the dead entry is dropped when it reaches the
// top. An EventId carries the slot's generation, so cancelling an event that already ran (or was
// cancelled) is a no-op. When dead entries outnumber live ones the heap is rebuilt without them, so
// a model that cancels and reschedules often keeps memory proportional to its live events. Costs:
// schedule and pop O(log₄ n), cancel O(1). Limits: 2^24 (16.7 M) pending events and 2^40 (1.1e12)
// events scheduled per queue, both checked.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/time.hpp"

namespace stepsim::engine {

class Simulator;

// Whatever reacts to events implements this; `tag` tells it which of its events fired.
class EventHandler {
 public:
  virtual void on_event(Simulator& sim, std::uint64_t tag) = 0;

 protected:
  ~EventHandler() = default;
};

struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class EventQueue {
 public:
  struct Fired {
    Time time;
    EventHandler* handler;
    std::uint64_t tag;
  };

  EventId push(Time at, EventHandler* handler, std::uint64_t tag);
  // Returns false when the event already ran or was cancelled.
  bool cancel(EventId id);
  // Removes and returns the earliest live event; `empty()` must be false.
  Fired pop();
  // Pops the earliest live event if it is due at or before `limit`.
  bool pop_until(Time limit, Fired& out);
  bool empty();      // drops dead entries at the top first
  Time next_time();  // earliest live event's time; `empty()` must be false
  std::size_t live() const { return live_; }
  std::size_t slab_size() const { return slots_.size(); }
  void reserve(std::size_t n);

 private:
  static constexpr int kSlotBits = 24;
  // One 128-bit key: time (picoseconds, >= 0) in the high half, sequence << 24 | slot in the
  // low half, so a single unsigned comparison orders by (time, sequence).
  __extension__ typedef unsigned __int128 Entry;
  static Entry make_entry(Time t, std::uint64_t low) {
    return (static_cast<Entry>(static_cast<std::uint64_t>(t.picoseconds())) << 64) | low;
  }
  static Time time_of(Entry e) { return Time::ps(static_cast<std::int64_t>(e >> 64)); }
  static std::uint32_t slot_of(Entry e) {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(e) & ((1u << kSlotBits) - 1));
  }
  static bool before(Entry a, Entry b) { return a < b; }
  struct Slot {
    EventHandler* handler = nullptr;
    std::uint64_t tag = 0;
    std::uint32_t generation = 0;
    bool alive = false;
  };
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void pop_top();
  void drop_dead();
  void compact();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace stepsim::engine
