// A growable array of records that never move: fixed chunks of 2^kShift elements (256: a
// network of a few flows, of which a plan builds thousands, takes tens of KB), a new one
// taken when the last is full. For the per-flow and per-variable records of a run, which number
// hundreds of thousands at once: a std::vector grown by doubling holds up to twice what it uses
// (and, while it grows, the old copy and the new at once), where this holds at most one chunk
// beyond it and copies nothing. An index is one shift and one mask: chunk, then place.
// Elements are default-constructed when a chunk is taken; nothing is ever removed but by clear().
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace stepsim::engine {

template <class T, unsigned kShift = 8>
class ChunkedVector {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << kShift;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[i >> kShift][i & (kChunk - 1)]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kShift][i & (kChunk - 1)]; }
  T& back() { return (*this)[size_ - 1]; }
  // Hints that element i will be read soon: both ends of it, since a record whose size is not a
  // divisor of 64 bytes (a flow's or a max-min variable's 40) crosses a cache line as often as not.
  void prefetch(std::size_t i) const {
    const char* at = reinterpret_cast<const char*>(&(*this)[i]);
    __builtin_prefetch(at);
    __builtin_prefetch(at + sizeof(T) - 1);
  }

  // A new last element, value-initialised.
  T& emplace_back() {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<T[]>(kChunk));
    T& x = (*this)[size_++];
    x = T{};
    return x;
  }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }
  // Elements held, used or not.
  std::size_t capacity() const { return chunks_.size() * kChunk; }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace stepsim::engine
