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

// The counting lives in detail/ (a new header and a new .cpp file); this reads the file in one
// fread and splits it on a table of the six separators.
#include "detail/hash.hpp"

#include <cstdio>
#include <filesystem>
#include <string_view>

std::vector<WordCount> wordcount(std::string filePath) {
  std::string data;
  if (std::FILE *file = std::fopen(filePath.c_str(), "rb")) {
    std::error_code error;
    auto size = std::filesystem::file_size(filePath, error);
    data.resize(error ? 0 : static_cast<std::size_t>(size));
    data.resize(std::fread(data.data(), 1, data.size(), file));
    std::fclose(file);
  }

  bool separator[256] = {};
  for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'})
    separator[c] = true;

  detail::WordCounter counter;
  const char *p = data.data(), *end = p + data.size();
  while (p < end) {
    while (p < end && separator[static_cast<unsigned char>(*p)])
      ++p;
    const char *start = p;
    while (p < end && !separator[static_cast<unsigned char>(*p)])
      ++p;
    if (p > start)
      counter.add(std::string_view(start, static_cast<std::size_t>(p - start)));
  }
  return counter.sorted();
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
