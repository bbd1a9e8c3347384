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

// Counts the words of the file at filePath, sorted as operator> says.
std::vector<WordCount> wordcount(std::string filePath);
