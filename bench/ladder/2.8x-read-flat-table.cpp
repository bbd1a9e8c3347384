// The 2.8× step's plan without mmap, so it builds on every target (the windows-amd one included):
// the file read in pieces with std::ifstream (binary: Windows text mode would stop at a Ctrl-Z
// byte), words hashed while scanned into a flat open-addressing table of 16-byte slots (room for a
// 32 MiB input's ~660k distinct words from the start), each distinct word copied once into a pool,
// then one sort of compact 24-byte records keyed on (count, first 8 bytes), so most comparisons
// never touch the text. Standard C++17 only: no POSIX or OS headers, no intrinsics. Output
// identical to the baseline's, NUL bytes and all.
#include <cstdint>
#include <cstring>
#include <memory>

namespace {
struct Slot {
  uint32_t hash; // 0: empty (real hashes are forced odd)
  uint32_t length;
  uint32_t offset;
  uint32_t count;
};

struct Record {
  uint64_t prefix; // the first 8 bytes, big-endian, zero-padded: orders like memcmp on them
  uint32_t count;
  uint32_t length;
  uint32_t offset;
};

uint64_t prefixOf(const unsigned char *w, uint32_t length) {
  uint64_t p = 0;
  for (uint32_t i = 0; i < 8; ++i)
    p = (p << 8) | (i < length ? w[i] : 0);
  return p;
}
} // namespace

std::vector<WordCount> wordcount(std::string filePath) {
  std::vector<WordCount> result;
  std::ifstream in{filePath, std::ios::binary | std::ios::ate};
  if (!in)
    return result;
  // std::streamoff is 64-bit on every target (std::ftell's long is 32-bit on Windows). Offsets are
  // kept in 32 bits: the manifest's file limit (512 MiB) is far below 4 GiB.
  const std::streamoff fileSize = in.tellg();
  if (fileSize <= 0)
    return result;
  in.seekg(0);
  // Each distinct word is copied here at its first occurrence: together they are never longer
  // than the file. new[] without (): the memory is only touched (page faults, zeroing by the
  // OS) as words arrive, a quarter of the file at 32 MiB, where a buffer holding the whole file
  // would touch all of it.
  std::unique_ptr<unsigned char[]> pool(new unsigned char[size_t(fileSize)]);
  uint32_t pooled = 0;

  bool sep[256] = {};
  for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'})
    sep[c] = true;

  // Sized for the vocabulary of a large input (a 32 MiB one has ~660k distinct words) so it
  // rarely grows; kept small enough that the frequent words' slots stay in cache.
  size_t capacity = size_t(1) << 20;
  std::vector<Slot> table(capacity);
  size_t used = 0;
  auto grow = [&] {
    std::vector<Slot> bigger(capacity * 2);
    const size_t mask = capacity * 2 - 1;
    for (const Slot &s : table) {
      if (!s.hash)
        continue;
      size_t i = s.hash & mask;
      while (bigger[i].hash)
        i = (i + 1) & mask;
      bigger[i] = s;
    }
    table.swap(bigger);
    capacity *= 2;
  };
  auto count = [&](const unsigned char *word, uint32_t length, uint32_t h) {
    size_t mask = capacity - 1, i = h & mask;
    for (;;) {
      Slot &s = table[i];
      if (!s.hash) {
        std::memcpy(pool.get() + pooled, word, length);
        s = Slot{h, length, pooled, 1};
        pooled += length;
        if (++used * 4 > capacity * 3)
          grow();
        return;
      }
      if (s.hash == h && s.length == length &&
          std::memcmp(pool.get() + s.offset, word, length) == 0) {
        ++s.count;
        return;
      }
      i = (i + 1) & mask;
    }
  };

  // The file read in 1 MiB pieces into one buffer that stays in cache; a word cut by the end of a
  // piece is moved to the buffer's start and finished by the next read (the buffer doubles for a
  // word longer than itself). At most the size first seen is read: the pool is sized for it.
  std::vector<unsigned char> buffer(size_t(1) << 20);
  size_t carried = 0;
  uint64_t remaining = uint64_t(fileSize);
  for (;;) {
    if (carried == buffer.size())
      buffer.resize(buffer.size() * 2);
    const size_t want = size_t(std::min<uint64_t>(buffer.size() - carried, remaining));
    in.read(reinterpret_cast<char *>(buffer.data() + carried), std::streamsize(want));
    const size_t got = size_t(in.gcount());
    remaining -= got;
    const bool last = got < want || remaining == 0;
    const unsigned char *p = buffer.data(), *end = p + carried + got, *cut = end;
    while (p < end) {
      while (p < end && sep[*p])
        ++p;
      if (p == end)
        break;
      const unsigned char *start = p;
      uint32_t h = 0x9e3779b9u;
      while (p < end && !sep[*p])
        h = (h ^ *p++) * 0x01000193u;
      if (p == end && !last) {
        cut = start;
        break;
      }
      count(start, uint32_t(p - start), (h ^ (h >> 15)) | 1u);
    }
    if (last)
      break;
    carried = size_t(end - cut);
    std::memmove(buffer.data(), cut, carried);
  }

  const unsigned char *base = pool.get();
  std::vector<Record> records;
  records.reserve(used);
  for (const Slot &s : table)
    if (s.hash)
      records.push_back(Record{prefixOf(base + s.offset, s.length), s.count, s.length, s.offset});
  std::sort(records.begin(), records.end(), [base](const Record &a, const Record &b) {
    if (a.count != b.count)
      return a.count > b.count;
    if (a.prefix != b.prefix)
      return a.prefix < b.prefix;
    const uint32_t n = a.length < b.length ? a.length : b.length;
    if (n > 8) {
      const int c = std::memcmp(base + a.offset + 8, base + b.offset + 8, n - 8);
      if (c != 0)
        return c < 0;
    }
    return a.length < b.length;
  });
  result.reserve(records.size());
  for (const Record &r : records)
    result.push_back(WordCount{
        int(r.count), std::string(reinterpret_cast<const char *>(base + r.offset), r.length)});
  return result;
}
