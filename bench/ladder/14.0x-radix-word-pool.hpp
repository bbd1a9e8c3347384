// The wordcount interface: keep these names and types; the judge's driver calls init() and then
// wordcount() once, and prints each element's `word` and `count`.
#pragma once

#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

struct WordCount {
  int count;
  std::string word;

  // Output order: count descending, then word ascending byte-wise (std::string::operator<).
  friend bool operator>(const WordCount &lh, const WordCount &rh) {
    if (lh.count != rh.count)
      return lh.count > rh.count;
    return lh.word < rh.word;
  }

  friend bool operator!=(const WordCount &lh, const WordCount &rh) {
    return lh.count != rh.count || lh.word != rh.word;
  }
};

// Called once before wordcount(); use it to set up anything you need (it may do nothing).
void init();

#ifdef SOLUTION
#include <cstdint>
#include <string_view>

// The solution's own result (the driver prints any range of elements with `word` and `count`):
// each word a view into the input's bytes, never copied into a std::string.
struct WordView {
  std::string_view word;
  uint32_t count;
};

struct Words {
  WordView *first = nullptr, *last = nullptr;
  const WordView *begin() const { return first; }
  const WordView *end() const { return last; }
};

Words wordcount(std::string filePath);
#else
// Counts the words of the file at filePath, sorted as operator> says.
std::vector<WordCount> wordcount(std::string filePath);
#endif
