// Counts words: your solution goes in the SOLUTION branch, the baseline below is the reference.
#include "wordcount.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#ifdef SOLUTION

// Allocates 64 MiB blocks and writes every byte of each, up to 64 GiB: far past any memory
// limit. Touching the pages matters: untouched memory is never charged, and a limit enforced with
// RLIMIT_AS is only recognised once the resident set is large. (An example MEMORY_LIMIT_EXCEEDED.)
#include <cstddef>

std::vector<WordCount> wordcount(std::string filePath) {
  constexpr std::size_t kBlock = std::size_t{64} << 20;
  std::vector<std::vector<char>> blocks;
  for (int i = 0; i < 1024; ++i)
    blocks.emplace_back(kBlock, static_cast<char>(i + 1)); // value-initialised: every page written
  std::size_t sum = 0;
  for (const auto &block : blocks)
    sum += static_cast<unsigned char>(block[block.size() / 2]);
  std::cerr << filePath << ": " << sum << "\n";
  return {};
}

#else

// The baseline: words are what `std::ifstream >> std::string` reads, i.e. split on the six ASCII
// whitespace bytes (space, \t, \n, \v, \f, \r). Its output is the truth; do not change it.
std::vector<WordCount> wordcount(std::string filePath) {
  std::unordered_map<std::string, int> m;
  m.max_load_factor(0.5);

  std::vector<WordCount> mvec;

  // Binary: Windows text mode ends a read at byte 0x1A (Ctrl-Z), which would change the truth.
  std::ifstream inFile{filePath, std::ios::binary};
  if (!inFile) {
    std::cerr << "Invalid input file: " << filePath << "\n";
    return mvec;
  }

  std::string s;
  while (inFile >> s)
    m[s]++;

  mvec.reserve(m.size());
  for (auto &p : m)
    mvec.emplace_back(WordCount{p.second, std::move(p.first)});

  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  return mvec;
}

#endif
