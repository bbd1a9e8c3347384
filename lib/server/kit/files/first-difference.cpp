// The kit's output comparer (used by check.cmake and time.cmake): compares two outputs byte for
// byte, as the judge does, and prints where they first differ: the line number, the byte offset,
// both lines' lengths and the lines themselves, with bytes that are not printable UTF-8 as escapes.
//   first-difference EXPECTED ACTUAL   exit 0 identical, 1 different, 2 a file cannot be read
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace {

bool readAll(const char *path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

// Length of the valid UTF-8 sequence starting at s[i] (multi-byte only), or 0.
std::size_t utf8Length(const std::string &s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
  if (n == 0 || c >= 0xf5 || i + n > s.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80)
      return 0;
  // Overlong three- and four-byte forms, surrogates and code points above U+10FFFF.
  const unsigned char d = byte(i + 1);
  if ((c == 0xe0 && d < 0xa0) || (c == 0xed && d >= 0xa0) || (c == 0xf0 && d < 0x90) ||
      (c == 0xf4 && d >= 0x90))
    return 0;
  return n;
}

std::uint32_t codePoint(const std::string &s, std::size_t i, std::size_t n) {
  static const unsigned char lead[] = {0, 0, 0x1f, 0x0f, 0x07};
  std::uint32_t point = static_cast<unsigned char>(s[i]) & lead[n];
  for (std::size_t k = 1; k < n; ++k)
    point = (point << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return point;
}

bool isUnicodeSpace(std::uint32_t p) {
  return p == 0x85 || p == 0xa0 || p == 0x1680 || (p >= 0x2000 && p <= 0x200b) || p == 0x2028 ||
         p == 0x2029 || p == 0x202f || p == 0x205f || p == 0x3000 || p == 0xfeff;
}

// A line as a quoted string a terminal shows faithfully; at most about `width` bytes from `from`.
std::string show(const std::string &line, std::size_t from, std::size_t width) {
  std::string out = from > 0 ? "\"..." : "\"";
  std::size_t i = from;
  const std::size_t end = std::min(line.size(), from + width);
  while (i < end) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    char escape[8];
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else if (std::size_t n = c >= 0x80 ? utf8Length(line, i) : 0) {
      // Unicode spaces look like ASCII ones on a terminal: those are named instead.
      const std::uint32_t point = codePoint(line, i, n);
      if (isUnicodeSpace(point)) {
        std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(point));
        out += escape;
      } else {
        out.append(line, i, n);
      }
      i += n;
      continue;
    } else {
      std::snprintf(escape, sizeof escape, "\\x%02x", c);
      out += escape;
    }
    ++i;
  }
  out += end < line.size() ? "...\"" : "\"";
  return out;
}

std::string lineAt(const std::string &text, std::size_t start) {
  if (start >= text.size())
    return std::string();
  const std::size_t end = text.find('\n', start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: first-difference EXPECTED ACTUAL\n");
    return 2;
  }
  std::string expected, actual;
  if (!readAll(argv[1], expected)) {
    std::fprintf(stderr, "first-difference: cannot read %s\n", argv[1]);
    return 2;
  }
  if (!readAll(argv[2], actual)) {
    std::fprintf(stderr, "first-difference: cannot read %s\n", argv[2]);
    return 2;
  }
  if (expected == actual)
    return 0;

  const auto mismatch = std::mismatch(expected.begin(),
                                      expected.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                             expected.size(), actual.size())),
                                      actual.begin());
  const std::size_t offset = static_cast<std::size_t>(mismatch.first - expected.begin());
  const std::size_t lineStart = offset == 0 ? 0 : expected.rfind('\n', offset - 1) + 1;
  const std::size_t lineNumber =
      1 + static_cast<std::size_t>(std::count(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(lineStart), '\n'));
  const std::string want = lineAt(expected, lineStart);
  const std::string got = lineAt(actual, lineStart);
  // Long lines (a 1 MiB word) are shown from a little before the first differing byte.
  const std::size_t column = offset - lineStart;
  const std::size_t from = column > 40 ? column - 40 : 0;

  std::printf("first difference at line %zu, byte %zu (column %zu)\n", lineNumber, offset,
              column + 1);
  if (lineStart >= expected.size())
    std::printf("  expected: (end of output: %zu bytes)\n", expected.size());
  else
    std::printf("  expected: %s (%zu bytes)\n", show(want, from, 120).c_str(), want.size());
  if (lineStart >= actual.size())
    std::printf("  got:      (end of output: %zu bytes)\n", actual.size());
  else
    std::printf("  got:      %s (%zu bytes)\n", show(got, from, 120).c_str(), got.size());
  return 1;
}
