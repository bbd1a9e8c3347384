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

// Treats U+00A0 NO-BREAK SPACE as a separator. (An example WRONG_ANSWER.)
#include <cstdio>
#include <string_view>

std::vector<WordCount> wordcount(std::string filePath) {
  std::vector<WordCount> result;
  std::string data;
  if (std::FILE *file = std::fopen(filePath.c_str(), "rb")) {
    char chunk[1 << 16];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;)
      data.append(chunk, n);
    std::fclose(file);
  }

  bool separator[256] = {};
  for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'})
    separator[c] = true;
  auto isSeparator = [&](char c) { return separator[static_cast<unsigned char>(c)]; };

  std::unordered_map<std::string_view, int> counts;
  const char *p = data.data(), *end = p + data.size();
  // BUG: U+00A0 NO-BREAK SPACE (c2 a0) is taken for a space too; the contract splits on the six
  // ASCII separators only, so "foo\u00A0bar" must stay one word.
  auto spaceAt = [&](const char *q) -> std::size_t {
    if (isSeparator(*q))
      return 1;
    if (*q == '\xC2' && q + 1 < end && q[1] == '\xA0')
      return 2;
    return 0;
  };
  while (p < end) {
    while (p < end && spaceAt(p) != 0)
      p += spaceAt(p);
    const char *start = p;
    while (p < end && spaceAt(p) == 0)
      ++p;
    if (p > start)
      ++counts[std::string_view(start, static_cast<std::size_t>(p - start))];
  }

  result.reserve(counts.size());
  for (const auto &[word, count] : counts)
    result.push_back(WordCount{count, std::string(word)});
  std::sort(result.begin(), result.end(), std::greater<WordCount>());
  return result;
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
