// A map from non-negative int keys (link ids, constraint ids) to values, for the hot paths that
// look one up per link per flow: open addressing with linear probing in one array, kept at most
// half full, so a lookup is one hashed slot and usually no further probe, where a node-based
// std::unordered_map chases a pointer to a separately allocated node.
//
// The hash is Fibonacci hashing (the key times 2^32/φ, the top bits taken), which spreads
// consecutive ids, the common case, evenly. Entries are never erased (a flow network's links live
// for its run); growing doubles the array and re-inserts. Iteration (for_each) is in slot order,
// which depends only on the keys inserted and their order, so it is deterministic; callers that
// need key order sort.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/engine/check.hpp"

namespace stepsim::engine {

template <class V>
class IntTable {
 public:
  // The value of `key`, or null.
  V* find(int key) {
    if (key < 0 || slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key < 0) return nullptr;
    }
  }
  const V* find(int key) const { return const_cast<IntTable*>(this)->find(key); }

  // The value of `key`, value-initialised when first asked for. Adding a key may move every value
  // (the array grows); looking one up moves none.
  V& operator[](int key) {
    STEPSIM_CHECK(key >= 0, "a negative key in an IntTable");
    if (V* v = find(key)) return *v;
    if (2 * (used_ + 1) > slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key < 0) {
        slots_[i].key = key;
        ++used_;
        return slots_[i].value;
      }
    }
  }

  std::size_t size() const { return used_; }

  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.key >= 0) f(s.key, s.value);
  }

 private:
  struct Slot {
    int key = -1;
    V value{};
  };
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(int key) const {
    const std::uint64_t h =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(key)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> (64 - std::countr_zero(slots_.size())));
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    for (Slot& s : old) {
      if (s.key < 0) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key >= 0) i = (i + 1) & mask();
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace stepsim::engine
