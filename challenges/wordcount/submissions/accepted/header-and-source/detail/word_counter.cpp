// The out-of-line half of detail::WordCounter (see hash.hpp).
#include "hash.hpp"

#include <algorithm>
#include <string>

namespace detail {

namespace {

// The first eight bytes, big-endian and zero-padded: comparing these integers orders words as
// comparing their bytes does, except that "ab" and "ab\0" tie (a full comparison settles that).
std::uint64_t prefixKey(std::string_view word) {
  std::uint64_t key = 0;
  for (std::size_t i = 0; i < 8; ++i)
    key = (key << 8) | (i < word.size() ? static_cast<unsigned char>(word[i]) : 0u);
  return key;
}

struct Entry {
  std::uint64_t prefix;
  int count;
  std::string_view word;
};

} // namespace

WordCounter::WordCounter() { counts_.reserve(1 << 16); }

std::vector<WordCount> WordCounter::sorted() const {
  // Sorting integer keys first: most words tie on their count, and the prefix settles the tie.
  std::vector<Entry> entries;
  entries.reserve(counts_.size());
  for (const auto &[word, count] : counts_)
    entries.push_back(Entry{prefixKey(word), count, word});
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    if (a.count != b.count)
      return a.count > b.count;
    if (a.prefix != b.prefix)
      return a.prefix < b.prefix;
    return a.word < b.word; // unsigned bytes, like std::string
  });

  std::vector<WordCount> result;
  result.reserve(entries.size());
  for (const Entry &entry : entries)
    result.push_back(WordCount{entry.count, std::string(entry.word)});
  return result;
}

} // namespace detail
