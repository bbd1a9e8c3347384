// The judge's driver (protected): calls init(), then wordcount() exactly once, and prints every
// element as `word<TAB>count<LF>` through one large buffer.
#ifdef _WIN32
#define _CRT_SECURE_NO_WARNINGS
#include <fcntl.h>
#include <io.h>
#endif

#include "wordcount.hpp"

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace {

[[noreturn]] void fail(const char *what, const char *path, int error) {
  std::fprintf(stderr, "wordcount: %s%s%s: %s\n", what, path ? " " : "", path ? path : "",
               std::strerror(error));
  std::exit(1);
}

// The output buffer is also a streambuf, so words of a solution's own type, printed through
// std::ostream <<, land in the same buffer, in order, without a second copy.
class Output final : public std::streambuf {
public:
  explicit Output(std::size_t capacity) : buffer_(capacity) { reset(); }

  Output(const Output &) = delete;
  Output &operator=(const Output &) = delete;

  void write(const char *data, std::size_t size) {
    if (size > free()) {
      flush();
      if (size >= buffer_.size()) {
        writeOut(data, size);
        return;
      }
    }
    std::memcpy(pptr(), data, size);
    advance(size);
  }

  void put(char c) {
    if (free() == 0)
      flush();
    *pptr() = c;
    pbump(1);
  }

  template <class Integer> void putInteger(Integer value) {
    constexpr std::size_t kMaxDigits = 48; // enough for a sign and 128 bits
    if (free() < kMaxDigits)
      flush();
    // Widened so that every integer type (char, char16_t, wchar_t, ...) has a to_chars overload.
    std::to_chars_result printed;
    if constexpr (sizeof(Integer) > sizeof(long long))
      printed = std::to_chars(pptr(), epptr(), value);
    else if constexpr (std::is_signed_v<Integer>)
      printed = std::to_chars(pptr(), epptr(), static_cast<long long>(value));
    else
      printed = std::to_chars(pptr(), epptr(), static_cast<unsigned long long>(value));
    char *end = printed.ptr;
    advance(static_cast<std::size_t>(end - pptr()));
  }

  void flush() {
    writeOut(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    reset();
  }

protected:
  int_type overflow(int_type ch) override {
    flush();
    if (!traits_type::eq_int_type(ch, traits_type::eof()))
      put(traits_type::to_char_type(ch));
    return traits_type::not_eof(ch);
  }

  std::streamsize xsputn(const char *data, std::streamsize size) override {
    write(data, static_cast<std::size_t>(size));
    return size;
  }

private:
  std::size_t free() const { return static_cast<std::size_t>(epptr() - pptr()); }

  // pbump takes an int; callers only advance by at most the buffer's size.
  void advance(std::size_t size) { pbump(static_cast<int>(size)); }

  void reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

  static void writeOut(const char *data, std::size_t size) {
    while (size > 0) {
      errno = 0;
      std::size_t written = std::fwrite(data, 1, size, stdout);
      if (written == 0)
        fail("cannot write the output", nullptr, errno ? errno : EIO);
      data += written;
      size -= written;
    }
  }

  std::vector<char> buffer_;
};

// Any std::basic_string of char, whatever its allocator (std::pmr::string is one).
template <class T> struct IsCharString : std::false_type {};
template <class Allocator>
struct IsCharString<std::basic_string<char, std::char_traits<char>, Allocator>> : std::true_type {};

template <class Word> void putWord(Output &out, std::ostream &stream, const Word &word) {
  using W = std::decay_t<Word>;
  if constexpr (IsCharString<W>::value || std::is_same_v<W, std::string_view>) {
    // Bytes as they are: a word may contain NUL bytes.
    out.write(word.data(), word.size());
  } else {
    stream << word;
  }
}

template <class Count> void putCount(Output &out, std::ostream &stream, const Count &count) {
  using C = std::decay_t<Count>;
  if constexpr (std::is_same_v<C, bool>) {
    out.put(count ? '1' : '0');
  } else if constexpr (std::is_integral_v<C>) {
    out.putInteger(count);
  } else {
    stream << count;
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <input file>\n", argc > 0 ? argv[0] : "wordcount");
    return 2;
  }

  // A missing or unreadable input is reported by the driver, before the solution runs, so it
  // never depends on how a solution handles errors.
  {
    std::FILE *input = std::fopen(argv[1], "rb");
    if (!input)
      fail("cannot open", argv[1], errno);
    std::fclose(input);
    // fopen succeeds on a directory on POSIX; reading it would fail later, inside the solution.
    // (No probe read: the input may be a pipe, whose bytes a probe would consume.)
    std::error_code error;
    if (std::filesystem::is_directory(argv[1], error))
      fail("cannot open", argv[1], EISDIR);
  }

#ifdef _WIN32
  _setmode(_fileno(stdout), _O_BINARY);
#endif
  // Our own buffer does the buffering; stdio's would only add a copy.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  // A bigger output buffer "to print faster": the driver is the judge's, not the contestant's.
  Output out(std::size_t{1} << 26);
  std::ostream stream(&out);

  init();
  auto result = wordcount(std::string(argv[1]));

  for (auto &&entry : result) {
    putWord(out, stream, entry.word);
    out.put('\t');
    putCount(out, stream, entry.count);
    out.put('\n');
  }
  out.flush();
  if (std::fflush(stdout) != 0)
    fail("cannot write the output", nullptr, errno ? errno : EIO);
  return 0;
}
