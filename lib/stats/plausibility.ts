// The plausibility check (contracts/judging.ts plausibilitySchema): a program that
// finishes faster than the host can read its input from memory did not read its input, whatever
// its output says. Flagged for the organizer, never a verdict by itself.
import type { Plausibility } from '../../contracts';

export function plausibilityOf(options: {
  inputBytes: number;
  /** The fastest timed run of the program. */
  fastestMs: number;
  /** The host's sequential read bandwidth (bytes/s); null when the runner could not measure it. */
  bandwidthBytesPerSecond: number | null;
}): Plausibility | null {
  const { inputBytes, fastestMs, bandwidthBytesPerSecond } = options;
  if (!bandwidthBytesPerSecond || bandwidthBytesPerSecond <= 0) return null;
  const minPlausibleMs = (inputBytes / bandwidthBytesPerSecond) * 1000;
  return {
    bandwidthBytesPerSecond,
    inputBytes,
    minPlausibleMs,
    fastestMs,
    flagged: fastestMs < minPlausibleMs,
  };
}
