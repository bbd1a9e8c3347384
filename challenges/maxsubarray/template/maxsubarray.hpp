// The interface the judge's driver calls (you may add to this file; keep these names and types).
#pragma once

#include <string>

/** The values at positions begin .. end-1 (0-based), and their sum. */
struct Range {
  long long sum;
  long long begin;
  long long end;
};

/** The contiguous, non-empty range with the largest sum (rules: README.md); {0, 0, 0} when empty. */
Range maxSubarray(const std::string &filePath);
