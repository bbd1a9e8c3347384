// 8.1× (measured, bench/ladder/README.md), single-threaded, the 2022 winners' whole toolbox: the
// file read into memory madvised for huge pages; separators found 64 bytes at a time (AVX2
// compares to bit masks, word starts and ends as bit transitions); each word hashed from 8-byte
// loads and its 32-byte slot prefetched 16 words before it is counted; a counting sort on the
// count, then each large group spread by its first two bytes before small comparison sorts; and
// no std::string at all: the result is the solution's own range of views into the input's bytes
// (wordcount.hpp declares it under SOLUTION, as several 2022 solutions did). Output identical to
// the baseline's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {
constexpr size_t kPad = 128; // zeroed bytes readable past the end of the file

// 32 bytes, two to a cache line: a word of up to 16 bytes is compared without reading the text.
struct alignas(32) Slot {
  uint64_t head; // bytes 0-7, little-endian, zero-padded
  uint64_t next; // bytes 8-15
  uint32_t length;
  uint32_t offset;
  uint32_t count; // 0: empty
  uint32_t hash;
};

struct Record {
  uint64_t head, next; // big-endian: they order like memcmp on the first 16 bytes
  uint32_t length;
  uint32_t offset;
};

// A word tokenized and hashed, its slot prefetched, waiting to be counted.
struct Pending {
  const unsigned char *word;
  uint64_t head, next;
  uint32_t length, hash;
};

inline uint64_t load8(const unsigned char *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The file's bytes, read (not mapped) into memory madvised for huge pages, followed by kPad zero
// bytes, so loads may run past a word's end.
struct Text {
  unsigned char *data = nullptr;
  size_t size = 0, allocated = 0;
  ~Text() {
    if (data)
      munmap(data, allocated);
  }
  void keep() { data = nullptr; }
  bool open(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
      return false;
    struct stat st;
    if (fstat(fd, &st) != 0) {
      close(fd);
      return false;
    }
    size = size_t(st.st_size);
    allocated = size + kPad;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    void *area = mmap(nullptr, allocated, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (area == MAP_FAILED) {
      close(fd);
      return false;
    }
    madvise(area, allocated, MADV_HUGEPAGE);
    data = static_cast<unsigned char *>(area);
    size_t got = 0;
    while (got < size) {
      const ssize_t n = read(fd, data + got, size - got);
      if (n <= 0)
        break;
      got += size_t(n);
    }
    close(fd);
    size = got;
    return true;
  }
};

// One byte per separator: the six of std::isspace in the "C" locale.
struct Separators {
  bool is[256] = {};
  Separators() {
    for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'})
      is[c] = true;
  }
};
const Separators kSep;

// Bit i set when byte i of the 64 at `p` is a separator: with AVX2, 32 bytes per compare.
inline uint64_t separatorBits(const unsigned char *p) {
#if defined(__AVX2__)
  uint64_t bits = 0;
  for (int half = 0; half < 2; ++half) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 32 * half));
    const __m256i space = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(' '));
    // \t \n \v \f \r are 9 to 13: v - 9 is at most 4 (unsigned) exactly for them.
    const __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8(9));
    const __m256i control = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(4)), d);
    const uint32_t mask = uint32_t(_mm256_movemask_epi8(_mm256_or_si256(space, control)));
    bits |= uint64_t(mask) << (32 * half);
  }
  return bits;
#else
  uint64_t bits = 0;
  for (int i = 0; i < 64; ++i)
    bits |= uint64_t(kSep.is[p[i]]) << i;
  return bits;
#endif
}

// Eight bytes of a word from `from` on, zero-padded past its end.
inline uint64_t part(const unsigned char *w, uint32_t length, uint32_t from) {
  if (length <= from)
    return 0;
  const uint64_t v = load8(w + from);
  return length - from >= 8 ? v : v & ((uint64_t(1) << (8 * (length - from))) - 1);
}

inline Pending tokenized(const unsigned char *w, uint32_t length) {
  Pending t{w, part(w, length, 0), part(w, length, 8), length, 0};
  uint64_t h = (t.head ^ length) * 0x9E3779B97F4A7C15ull;
  h = (h ^ t.next) * 0xFF51AFD7ED558CCDull;
  for (uint32_t i = 16; i < length; i += 8)
    h = (h ^ part(w, length, i)) * 0xFF51AFD7ED558CCDull;
  t.hash = uint32_t(h >> 32);
  return t;
}

inline bool sameTail(const unsigned char *a, const unsigned char *b, uint32_t length) {
  return length <= 16 || std::memcmp(a + 16, b + 16, length - 16) == 0;
}

template <class T> T *hugeArray(size_t n) {
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  n = n ? n : 1; // an empty input has no words, and mmap refuses a length of 0
  void *p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED)
    throw std::bad_alloc();
  madvise(p, n * sizeof(T), MADV_HUGEPAGE);
  return static_cast<T *>(p);
}

class Table {
public:
  explicit Table(size_t capacity) : capacity_(capacity), slots_(hugeArray<Slot>(capacity)) {}
  ~Table() { munmap(slots_, capacity_ * sizeof(Slot)); }
  /** Its memory, once counting is over: scratch room for capacity() * sizeof(Slot) bytes. */
  void *memory() { return slots_; }
  size_t capacity() const { return capacity_; }
  size_t used() const { return used_; }
  const Slot *begin() const { return slots_; }
  const Slot *end() const { return slots_ + capacity_; }

  void prefetch(uint32_t hash) const { __builtin_prefetch(&slots_[hash & (capacity_ - 1)], 1); }

  void add(const unsigned char *base, const Pending &t) {
    for (size_t i = t.hash & (capacity_ - 1);; i = (i + 1) & (capacity_ - 1)) {
      Slot &s = slots_[i];
      if (!s.count) {
        s = Slot{t.head, t.next, t.length, uint32_t(t.word - base), 1, t.hash};
        if (++used_ * 4 > capacity_ * 3)
          grow();
        return;
      }
      if (s.head == t.head && s.next == t.next && s.length == t.length &&
          sameTail(base + s.offset, t.word, t.length)) {
        ++s.count;
        return;
      }
    }
  }

private:
  void grow() {
    const size_t capacity = capacity_ * 2;
    Slot *slots = hugeArray<Slot>(capacity);
    for (size_t j = 0; j < capacity_; ++j) {
      const Slot &s = slots_[j];
      if (!s.count)
        continue;
      size_t i = s.hash & (capacity - 1);
      while (slots[i].count)
        i = (i + 1) & (capacity - 1);
      slots[i] = s;
    }
    munmap(slots_, capacity_ * sizeof(Slot));
    slots_ = slots;
    capacity_ = capacity;
  }

  size_t capacity_;
  size_t used_ = 0;
  Slot *slots_;
};


// A record sorted, then turned in place into what the driver prints (both 24 bytes).
union Item {
  Record record;
  WordView view;
};
static_assert(sizeof(Item) == sizeof(Record) && sizeof(Item) == sizeof(WordView),
              "records become views in place");

bool byBytes(const unsigned char *base, const Record &a, const Record &b) {
  if (a.head != b.head)
    return a.head < b.head;
  if (a.next != b.next)
    return a.next < b.next;
  const uint32_t n = a.length < b.length ? a.length : b.length;
  if (n > 16) {
    const int c = std::memcmp(base + a.offset + 16, base + b.offset + 16, n - 16);
    if (c != 0)
      return c < 0;
  }
  return a.length < b.length;
}

// The words of one count by their bytes: a large group is first spread by its first two bytes
// (one counting pass into `scratch`, and back), so each comparison sort is small and in cache.
void sortGroup(const unsigned char *base, Record *from, Record *to, Record *scratch,
               uint32_t *bins) {
  auto less = [base](const Record &a, const Record &b) { return byBytes(base, a, b); };
  const size_t n = size_t(to - from);
  if (n < 4096) {
    std::sort(from, to, less);
    return;
  }
  std::memset(bins, 0, sizeof(uint32_t) * 65537);
  for (const Record *r = from; r != to; ++r)
    ++bins[(r->head >> 48) + 1];
  for (size_t b = 1; b <= 65536; ++b)
    bins[b] += bins[b - 1];
  for (const Record *r = from; r != to; ++r)
    scratch[bins[r->head >> 48]++] = *r;
  std::memcpy(from, scratch, n * sizeof(Record));
  // bins[b] is now where bin b ends.
  for (size_t b = 0, start = 0; b < 65536; start = bins[b++])
    if (bins[b] - start > 1)
      std::sort(from + start, from + bins[b], less);
}
} // namespace

Words wordcount(std::string filePath) {
  Text text;
  if (!text.open(filePath) || text.size == 0)
    return Words{};
  const unsigned char *base = text.data, *end = base + text.size;

  // Counted kDepth words behind the tokenizer: each word's slot is prefetched while the words
  // before it are counted, so the table's cache misses overlap instead of following each other.
  Table table(size_t(1) << 20);
  constexpr unsigned kDepth = 16;
  Pending ring[kDepth];
  unsigned n = 0;
  auto counted = [&](const unsigned char *w, const unsigned char *e) {
    Pending &t = ring[n++ % kDepth];
    if (n > kDepth)
      table.add(base, t);
    t = tokenized(w, uint32_t(e - w));
    table.prefetch(t.hash);
  };
  // 64 bytes at a time: where words start (a byte after a separator) and end (a separator after
  // a byte), as bit masks; starts and ends alternate, a word may span blocks.
  uint64_t before = 1; // the byte before the file counts as a separator
  const unsigned char *open = nullptr;
  for (const unsigned char *block = base; block < end; block += 64) {
    uint64_t sep = separatorBits(block);
    if (size_t(end - block) < 64)
      sep |= ~uint64_t(0) << (end - block); // past the end: the padding, not words
    const uint64_t after = (sep << 1) | before;
    uint64_t starts = ~sep & after, ends = sep & ~after;
    before = sep >> 63;
    for (;;) {
      if (open) {
        if (!ends)
          break;
        counted(open, block + __builtin_ctzll(ends));
        ends &= ends - 1;
        open = nullptr;
      } else {
        if (!starts)
          break;
        open = block + __builtin_ctzll(starts);
        starts &= starts - 1;
      }
    }
  }
  if (open)
    counted(open, end);
  for (unsigned i = n > kDepth ? n - kDepth : 0; i < n; ++i)
    table.add(base, ring[i % kDepth]);

  // Counting sort on the count (descending): group c holds the words seen most - c times.
  uint32_t most = 0;
  for (const Slot &s : table)
    most = s.count > most ? s.count : most;
  std::vector<uint32_t> start(size_t(most) + 2, 0);
  for (const Slot &s : table)
    if (s.count)
      ++start[most - s.count + 1];
  for (size_t c = 1; c < start.size(); ++c)
    start[c] += start[c - 1];
  Item *items = hugeArray<Item>(table.used());
  {
    std::vector<uint32_t> at(start.begin(), start.end() - 1);
    for (const Slot &s : table)
      if (s.count)
        items[at[most - s.count]++].record =
            Record{__builtin_bswap64(s.head), __builtin_bswap64(s.next), s.length, s.offset};
  }
  // The table is no longer needed: its memory is the radix pass's scratch (it is larger).
  Record *scratch = static_cast<Record *>(table.memory());
  std::vector<uint32_t> bins(65537);
  for (uint32_t c = 0; c <= most; ++c) {
    Item *from = items + start[c], *to = items + start[c + 1];
    sortGroup(base, &from->record, &to->record, scratch, bins.data());
    for (Item *i = from; i != to; ++i) {
      const Record r = i->record;
      const char *word = reinterpret_cast<const char *>(base + r.offset);
      i->view = WordView{std::string_view(word, r.length), most - c};
    }
  }
  // The views point into the file's bytes: they stay until the process ends, after printing.
  text.keep();
  WordView *views = &items->view;
  return Words{views, views + table.used()};
}
