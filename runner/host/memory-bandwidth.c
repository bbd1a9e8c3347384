// The host's sequential read bandwidth for the plausibility check (runner/host/memory-bandwidth.ts):
// reads a buffer far larger than any cache with a summing loop, several passes, and prints the best
// pass. The best pass is what one thread can read at most, so input bytes over it is a time no
// program that read its input can beat.
//
// Usage: memory-bandwidth [MiB] [passes]   (default 256 MiB, 5 passes)
// Output: one line "bandwidth <bytes per second> mib <MiB> passes <n> checksum <hex>".
// The checksum is printed so the compiler must compute the sums; the data depends on the process
// id, so no sum can be folded at compile time.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// Eight independent sums: enough loads in flight for the memory system, not the adds, to limit it.
static uint64_t sum_words(const uint64_t *words, size_t n) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    s0 += words[i];
    s1 += words[i + 1];
    s2 += words[i + 2];
    s3 += words[i + 3];
    s4 += words[i + 4];
    s5 += words[i + 5];
    s6 += words[i + 6];
    s7 += words[i + 7];
  }
  return s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7;
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 256;
  long passes = argc > 2 ? strtol(argv[2], NULL, 10) : 5;
  if (mib < 1 || mib > 4096 || passes < 1 || passes > 100) {
    fprintf(stderr, "memory-bandwidth: MiB must be 1..4096 and passes 1..100\n");
    return 2;
  }
  size_t bytes = (size_t)mib << 20;
  uint64_t *words = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (words == MAP_FAILED) {
    perror("memory-bandwidth: mmap");
    return 1;
  }
  size_t n = bytes / sizeof(uint64_t);
  // Written once (every page present before the timing), with values the compiler cannot know.
  uint64_t seed = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i++) words[i] = seed + i * 0x2545F4914F6CDD1Dull;

  double best = 0;
  uint64_t checksum = 0;
  for (long p = 0; p < passes; p++) {
    double t0 = now_seconds();
    checksum ^= sum_words(words, n);
    double elapsed = now_seconds() - t0;
    if (elapsed > 0 && (double)bytes / elapsed > best) best = (double)bytes / elapsed;
  }
  munmap(words, bytes);
  if (best <= 0) {
    fprintf(stderr, "memory-bandwidth: the clock did not advance\n");
    return 1;
  }
  printf("bandwidth %.0f mib %ld passes %ld checksum %016llx\n", best, mib, passes,
         (unsigned long long)checksum);
  return 0;
}
