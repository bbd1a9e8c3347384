// The maximum subarray: your solution goes in the SOLUTION branch, the baseline below is the truth.
#include "maxsubarray.hpp"

#include <cstddef>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#ifdef SOLUTION

// One read of the whole file, a hand-written parser and Kadane's scan as the values arrive: no
// vector, no stream extraction.
#include <cstdio>

Range maxSubarray(const std::string &filePath) {
  std::FILE *file = std::fopen(filePath.c_str(), "rb");
  if (!file)
    return Range{0, 0, 0};
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::fseek(file, 0, SEEK_SET);
  std::vector<char> data(static_cast<std::size_t>(size > 0 ? size : 0) + 1);
  const std::size_t length = std::fread(data.data(), 1, data.size() - 1, file);
  std::fclose(file);
  data[length] = '\n';

  Range best{0, 0, 0};
  bool any = false;
  long long current = 0;
  long long begin = 0;
  long long index = 0;
  const char *p = data.data();
  const char *const stop = data.data() + length;
  while (p < stop) {
    const bool negative = *p == '-';
    p += negative;
    long long value = 0;
    while (*p != '\n')
      value = value * 10 + (*p++ - '0');
    ++p;
    if (negative)
      value = -value;
    if (current <= 0) {
      current = value;
      begin = index;
    } else {
      current += value;
    }
    if (!any || current > best.sum) {
      best = Range{current, begin, index + 1};
      any = true;
    }
    ++index;
  }
  return best;
}
#else

// The baseline: every value read with `std::ifstream >>` into a vector, then Kadane's scan. A sum
// that is not positive is dropped (the range restarts), and only a strictly larger sum replaces the
// best: hence ties go to the range that ends first, then to the shortest.
Range maxSubarray(const std::string &filePath) {
  std::ifstream in{filePath, std::ios::binary};
  if (!in) {
    std::cerr << "Invalid input file: " << filePath << "\n";
    return Range{0, 0, 0};
  }
  std::vector<long long> values;
  long long value;
  while (in >> value)
    values.push_back(value);
  if (values.empty())
    return Range{0, 0, 0};

  Range best{values[0], 0, 1};
  long long current = 0;
  long long begin = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (current <= 0) {
      current = values[i];
      begin = static_cast<long long>(i);
    } else {
      current += values[i];
    }
    if (current > best.sum)
      best = Range{current, begin, static_cast<long long>(i) + 1};
  }
  return best;
}

#endif
