// One table of words per enum, read by everything that spells its values: the configuration
// (the word a file or a command line writes), the reports (a phrase for people) and to_string.
// Adding a value is one line in its table beside the enum. A table is checked where it is
// declared (Names<E, N> with N the enum's count), at compile time: a row too many or too few, a
// row without a word, or a word given twice does not compile.
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
  std::array<Name, N> names{};

  template <std::size_t M>
  consteval Names(const Name (&rows)[M]) {  // NOLINT: a table is written as its rows
    static_assert(M == N, "a word table needs exactly one row per value of its enum");
    for (std::size_t i = 0; i < N; ++i) {
      if (rows[i].word.empty()) throw "a row of a word table has no word";
      for (std::size_t j = 0; j < i; ++j)
        if (rows[j].word == rows[i].word) throw "a word table spells two values alike";
      names[i] = rows[i];
    }
  }

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
