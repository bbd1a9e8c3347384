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

// Maps the whole file (POSIX only: no #ifdef, so it does not build for Windows) and counts
// string_views into the mapping.
#include <fcntl.h>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

std::vector<WordCount> wordcount(std::string filePath) {
  std::vector<WordCount> out;
  int fd = open(filePath.c_str(), O_RDONLY);
  if (fd < 0)
    return out;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return out;
  }
  std::size_t size = static_cast<std::size_t>(st.st_size);
  const char *data = "";
  void *mapped = nullptr;
  if (size > 0) {
    mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      close(fd);
      return out;
    }
    data = static_cast<const char *>(mapped);
  }
  auto isSep = [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  std::unordered_map<std::string_view, int> counts;
  counts.reserve(1 << 16);
  std::size_t i = 0;
  while (i < size) {
    while (i < size && isSep(static_cast<unsigned char>(data[i])))
      i++;
    std::size_t start = i;
    while (i < size && !isSep(static_cast<unsigned char>(data[i])))
      i++;
    if (i > start)
      counts[std::string_view(data + start, i - start)]++;
  }
  out.reserve(counts.size());
  for (auto &p : counts)
    out.push_back(WordCount{p.second, std::string(p.first)});
  if (mapped)
    munmap(mapped, size);
  close(fd);
  std::sort(out.begin(), out.end(), std::greater<WordCount>());
  return out;
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
