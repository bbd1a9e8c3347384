// The judge's driver (protected): calls maxSubarray() once on the file named by argv[1] and prints
// `sum begin end\n`.
#include "maxsubarray.hpp"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: maxsubarray FILE\n");
    return 2;
  }
  const Range range = maxSubarray(std::string(argv[1]));
  std::printf("%lld %lld %lld\n", range.sum, range.begin, range.end);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
