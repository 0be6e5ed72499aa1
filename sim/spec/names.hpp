// One table of words per enum, read by everything that spells its values: the configuration
// (the word a file or a command line writes), the reports (a phrase for people) and to_string.
// Adding a value is one line in its table beside the enum; a table whose size differs from the
// enum's count fails to compile where it is declared (Names<E, N> with N the count).
// Enumerators are 0, 1, ..., N-1 in table order.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace stepsim::spec {

struct Name {
  std::string_view word;         // as files and command lines spell it: "multi_plane_fat_tree"
  std::string_view phrase = {};  // for people, where it differs: "multi-plane fat-tree"
};

template <class E, std::size_t N>
struct Names {
  std::array<Name, N> names;

  constexpr std::string_view word(E e) const { return names[static_cast<std::size_t>(e)].word; }
  constexpr std::string_view phrase(E e) const {
    const Name& n = names[static_cast<std::size_t>(e)];
    return n.phrase.empty() ? n.word : n.phrase;
  }
  // Every word, in enum order (for parsers that return the index of the word they read).
  std::vector<std::string> words() const {
    std::vector<std::string> out;
    for (const Name& n : names) out.emplace_back(n.word);
    return out;
  }
};

}  // namespace stepsim::spec
