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

// One read of the whole file, a 256-entry table of the six separators, an open-addressing hash
// table of words located in that buffer (the hash computed while the word is scanned), and one sort
// of small integer keys.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string_view>

namespace {

// Exactly what std::isspace accepts in the "C" locale: space, \t, \n, \v, \f, \r.
struct SeparatorTable {
  bool is[256] = {};
  SeparatorTable() {
    for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'})
      is[c] = true;
  }
};

// 16 bytes, so the table stays small: a word is an offset and a length into the file's buffer
// (the manifest caps inputs far below 4 GiB).
struct Slot {
  std::uint32_t offset;
  std::uint32_t length;
  std::uint32_t hash;
  std::int32_t count; // 0: empty
};

// Linear probing over a power-of-two array, kept at most half full.
class WordTable {
public:
  WordTable(const char *text, std::size_t capacity) : text_(text), slots_(capacity) {}

  void add(std::uint32_t offset, std::uint32_t length, std::uint32_t hash) {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot &slot = slots_[i];
      if (slot.count == 0) {
        slot = Slot{offset, length, hash, 1};
        if (++size_ * 2 > slots_.size())
          grow();
        return;
      }
      if (slot.hash == hash && word(slot) == std::string_view(text_ + offset, length)) {
        ++slot.count;
        return;
      }
    }
  }

  std::string_view word(const Slot &slot) const { return {text_ + slot.offset, slot.length}; }
  const std::vector<Slot> &slots() const { return slots_; }
  std::size_t size() const { return size_; }

private:
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    std::size_t mask = slots_.size() - 1;
    for (const Slot &slot : old) {
      if (slot.count == 0)
        continue;
      std::size_t i = slot.hash & mask;
      while (slots_[i].count != 0)
        i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  const char *text_;
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

// The whole file in one buffer: one fread of its size (and more reads only if it grew meanwhile).
std::string readFile(const std::string &filePath) {
  std::string data;
  std::FILE *file = std::fopen(filePath.c_str(), "rb");
  if (!file)
    return data;
  std::error_code error;
  auto size = std::filesystem::file_size(filePath, error);
  data.resize(error ? 0 : static_cast<std::size_t>(size));
  std::size_t got = std::fread(data.data(), 1, data.size(), file);
  data.resize(got);
  char chunk[1 << 16];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;)
    data.append(chunk, n);
  std::fclose(file);
  return data;
}

// The first eight bytes, big-endian and zero-padded: comparing these integers orders words as
// comparing their bytes does, except that "ab" and "ab\0" tie (a full comparison settles that).
std::uint64_t prefixKey(std::string_view word) {
  std::uint64_t key = 0;
  for (std::size_t i = 0; i < 8; ++i)
    key = (key << 8) | (i < word.size() ? static_cast<unsigned char>(word[i]) : 0u);
  return key;
}

} // namespace

std::vector<WordCount> wordcount(std::string filePath) {
  static const SeparatorTable separators;
  const std::string data = readFile(filePath);
  WordTable table(data.data(), 1 << 16);

  const auto *begin = reinterpret_cast<const unsigned char *>(data.data());
  const auto *end = begin + data.size();
  for (const auto *p = begin; p < end;) {
    while (p < end && separators.is[*p])
      ++p;
    if (p == end)
      break;
    const auto *start = p;
    std::uint32_t hash = 2166136261u; // FNV-1a
    while (p < end && !separators.is[*p]) {
      hash = (hash ^ *p) * 16777619u;
      ++p;
    }
    table.add(static_cast<std::uint32_t>(start - begin), static_cast<std::uint32_t>(p - start),
              hash);
  }

  // Sort small keys, not strings: most words share a count with many others, so ties are the
  // common case, and the prefix key settles nearly all of them without touching the text.
  struct Entry {
    std::uint64_t prefix;
    std::int32_t count;
    std::uint32_t slot;
  };
  std::vector<Entry> entries;
  entries.reserve(table.size());
  const std::vector<Slot> &slots = table.slots();
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].count != 0)
      entries.push_back(Entry{prefixKey(table.word(slots[i])), slots[i].count,
                              static_cast<std::uint32_t>(i)});
  std::sort(entries.begin(), entries.end(), [&](const Entry &a, const Entry &b) {
    if (a.count != b.count)
      return a.count > b.count;
    if (a.prefix != b.prefix)
      return a.prefix < b.prefix;
    return table.word(slots[a.slot]) < table.word(slots[b.slot]); // unsigned, like std::string
  });

  std::vector<WordCount> result;
  result.reserve(entries.size());
  for (const Entry &entry : entries)
    result.push_back(WordCount{entry.count, std::string(table.word(slots[entry.slot]))});
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
