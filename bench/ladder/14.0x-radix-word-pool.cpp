// 14.0× (measured, bench/ladder/README.md), single-threaded: the 8.1x-simd-views step with what
// was left of its time taken away. Where the time went, sampled with `perf record -e cpu-clock`:
// the kernel zeroing fresh pages, the driver reading each printed word at its first occurrence
// (a cache miss per distinct word), comparisons in the sort, and long words compared with text
// far back in the file. So: the file is mapped from the page cache (no copy, no fresh memory); the
// printed words are laid out one after the other in their printed order (a word of up to 16
// bytes straight from its sort record, without reading the file); each count's words are sorted
// by a most-significant-byte-first radix sort down to small ranges instead of by comparisons; a
// long word's slot remembers its latest occurrence, which is likely still in the cache when it
// next comes; the line after a slot's is prefetched with it, for the probes that go on past it;
// words are paired with their ends without a branch per word, and their first bytes taken
// without a branch on their length. The result is still the solution's own range of views
// (wordcount.hpp declares it under SOLUTION). Output identical to the baseline's.
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

// The file's bytes mapped from the page cache (no copy, and no fresh memory for the kernel to
// zero: on this VM zeroing fresh pages took up to a third of the 8.1x step's time), followed by
// at least kPad zero bytes, so loads may run past a word's end: the mapping sits at the start of
// a larger anonymous one, whose pages past the file are only read (the kernel's zero page).
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
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    allocated = (size + kPad + page - 1) / page * page;
    void *area = mmap(nullptr, allocated, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) {
      close(fd);
      return false;
    }
    data = static_cast<unsigned char *>(area);
    const int flags = MAP_PRIVATE | MAP_FIXED | MAP_POPULATE;
    if (size && mmap(area, size, PROT_READ, flags, fd, 0) == MAP_FAILED) {
      close(fd);
      return false;
    }
    close(fd);
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

// The first min(length, 8) bytes at `w`, zero-padded: no branch on the length (words of every
// length follow each other, so a branch on it would be mispredicted often).
inline uint64_t firstBytes(const unsigned char *w, uint32_t length) {
  const uint64_t v = load8(w);
#if defined(__BMI2__)
  return _bzhi_u64(v, length >= 8 ? 64 : 8 * length);
#else
  return length >= 8 ? v : v & ((uint64_t(1) << (8 * length)) - 1);
#endif
}

inline Pending tokenized(const unsigned char *w, uint32_t length) {
  Pending t{w, firstBytes(w, length), firstBytes(w + 8, length > 8 ? length - 8 : 0), length, 0};
  uint64_t h = (t.head ^ length) * 0x9E3779B97F4A7C15ull;
  h = (h ^ t.next) * 0xFF51AFD7ED558CCDull;
  for (uint32_t i = 16; i < length; i += 8)
    h = (h ^ firstBytes(w + i, length - i)) * 0xFF51AFD7ED558CCDull;
  t.hash = uint32_t(h >> 32);
  return t;
}

// Bytes 16 and on of two words of `length` bytes, 8 at a time (no call: most tails are short).
inline bool sameTail(const unsigned char *a, const unsigned char *b, uint32_t length) {
  for (uint32_t i = 16; i < length; i += 8)
    if (firstBytes(a + i, length - i) != firstBytes(b + i, length - i))
      return false;
  return true;
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

  // The slot's line and the next one, where a probe past the slot continues (two slots a line):
  // without the second, a probe that leaves the line waits for memory (10% of the run here).
  void prefetch(uint32_t hash) const {
    const size_t i = hash & (capacity_ - 1);
    __builtin_prefetch(&slots_[i], 1);
    __builtin_prefetch(&slots_[((i | 1) + 1) & (capacity_ - 1)], 1);
  }

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
        // The word's latest occurrence: the next comparison of a long word reads text that is
        // likely still in the cache, not its first occurrence far back in the file.
        s.offset = uint32_t(t.word - base);
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

// Byte `depth` of the record's word plus one, or 0 once the word has ended (a word sorts before
// every longer word it begins).
inline unsigned keyAt(const unsigned char *base, const Record &r, uint32_t depth) {
  if (depth >= r.length)
    return 0;
  if (depth < 8)
    return unsigned(r.head >> (56 - 8 * depth)) % 256 + 1;
  if (depth < 16)
    return unsigned(r.next >> (120 - 8 * depth)) % 256 + 1;
  return base[r.offset + depth] + 1u;
}

// Records that agree on their zero-padded bytes before `depth`, sorted by their bytes: spread by
// the next byte (most significant first, through `scratch`), down to small ranges that a
// comparison sort finishes in cache. Far fewer comparisons than sorting the whole range, whose
// words share long prefixes.
void radixSort(const unsigned char *base, Record *from, Record *to, Record *scratch,
               uint32_t depth) {
  auto less = [base](const Record &a, const Record &b) { return byBytes(base, a, b); };
  const size_t n = size_t(to - from);
  if (n < 48 || depth >= 64) {
    std::sort(from, to, less);
    return;
  }
  uint32_t bins[258] = {};
  for (const Record *r = from; r != to; ++r)
    ++bins[keyAt(base, *r, depth) + 1];
  if (bins[keyAt(base, *from, depth) + 1] == n) { // one shared byte: look at the next
    radixSort(base, from, to, scratch, depth + 1);
    return;
  }
  for (size_t b = 1; b <= 257; ++b)
    bins[b] += bins[b - 1];
  for (const Record *r = from; r != to; ++r)
    scratch[bins[keyAt(base, *r, depth)]++] = *r;
  std::memcpy(from, scratch, n * sizeof(Record));
  // bins[b] is now where bin b ends; the ended words (bin 0) differ only in what they ended with.
  if (bins[0] > 1)
    std::sort(from, from + bins[0], less);
  for (size_t b = 1, start = bins[0]; b <= 256; start = bins[b++])
    if (bins[b] - start > 1)
      radixSort(base, from + start, from + bins[b], scratch + start, depth + 1);
}

// The words of one count by their bytes: a large group is first spread by its first two bytes
// (one counting pass into `scratch`, and back), then each bin by the bytes after them.
void sortGroup(const unsigned char *base, Record *from, Record *to, Record *scratch,
               uint32_t *bins) {
  const size_t n = size_t(to - from);
  if (n < 4096) {
    radixSort(base, from, to, scratch, 0);
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
      radixSort(base, from + start, from + bins[b], scratch, 2);
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
    // Starts and ends alternate: a word left open by the block before ends at the first end,
    // then the k-th start pairs with the k-th end, and a start left over opens a word.
    if (open && ends) {
      counted(open, block + __builtin_ctzll(ends));
      ends &= ends - 1;
      open = nullptr;
    }
    while (ends) {
      counted(block + __builtin_ctzll(starts), block + __builtin_ctzll(ends));
      starts &= starts - 1;
      ends &= ends - 1;
    }
    if (starts)
      open = block + __builtin_ctzll(starts);
  }
  if (open)
    counted(open, end);
  for (unsigned i = n > kDepth ? n - kDepth : 0; i < n; ++i)
    table.add(base, ring[i % kDepth]);

  // Counting sort on the count (descending): group c holds the words seen most - c times. One
  // pass over the table counts the words of each count and the bytes of all distinct words.
  std::vector<uint32_t> seen(2, 0); // seen[k]: how many words were seen k times
  size_t bytes = 0;
  for (const Slot &s : table)
    if (s.count) {
      if (s.count >= seen.size())
        seen.resize(size_t(s.count) + 1, 0);
      ++seen[s.count];
      bytes += s.length;
    }
  uint32_t most = uint32_t(seen.size() - 1);
  while (most > 1 && !seen[most])
    --most;
  std::vector<uint32_t> start(size_t(most) + 2, 0);
  for (uint32_t c = 0; c <= most; ++c)
    start[c + 1] = start[c] + seen[most - c];
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
  // The words, in the order they are printed, one after the other: the driver then reads them in
  // sequence instead of at their first occurrences all over the file (a cache miss each). A word
  // of up to 16 bytes is taken from its record, without reading the file at all.
  unsigned char *pool = hugeArray<unsigned char>(bytes + 16);
  size_t at = 0;
  for (uint32_t c = 0; c <= most; ++c) {
    Item *from = items + start[c], *to = items + start[c + 1];
    sortGroup(base, &from->record, &to->record, scratch, bins.data());
    for (Item *i = from; i != to; ++i) {
      const Record r = i->record;
      unsigned char *word = pool + at;
      if (r.length <= 16) {
        const uint64_t head = __builtin_bswap64(r.head), next = __builtin_bswap64(r.next);
        std::memcpy(word, &head, 8);
        std::memcpy(word + 8, &next, 8);
      } else {
        std::memcpy(word, base + r.offset, r.length);
      }
      at += r.length;
      const char *text = reinterpret_cast<const char *>(word);
      i->view = WordView{std::string_view(text, r.length), most - c};
    }
  }
  // The words' bytes and their views stay until the process ends, after printing.
  WordView *views = &items->view;
  return Words{views, views + table.used()};
}
