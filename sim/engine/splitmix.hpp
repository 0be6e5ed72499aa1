// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): a 64-bit state advanced by the golden-ratio increment and mixed. The seeded draws
// (GPU speeds, expert placements, stress faults) use it so that a seed gives the same numbers on
// any machine and standard library.
#pragma once

#include <cstdint>

namespace stepsim::engine {

// Advances `state` and returns the next number of its sequence.
inline std::uint64_t splitmix64_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The number that follows `x` (a hash of it).
inline std::uint64_t splitmix64(std::uint64_t x) {
  return splitmix64_next(x);
}

}  // namespace stepsim::engine
